import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, ConfigError } from '../../src/config/config';
import { PRIVATE_TARGETS_WARNING } from '../../src/webhooks/private-targets';
import { spawnTs } from '../support/processes';
import { startHardhatNode, type HardhatNode } from '../evm/support/hardhat-node';
import { TestChain } from '../evm/support/test-chain';
import { startWebhookStack, type WebhookStack } from './stack';
import { captureLogger } from './support';

jest.setTimeout(60_000);

/** WEBHOOK_ALLOW_PRIVATE_TARGETS=1 lifts the address guard: local testing only, never live. */
describe('WEBHOOK_ALLOW_PRIVATE_TARGETS is for local testing only', () => {
  it('is refused with CHAIN_MODE=live, naming the variable; allowed on devnet; live without it is fine', () => {
    const live = { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1', CHAIN_MODE: 'live' };
    expect(() => loadConfig(live)).toThrow(ConfigError);
    expect(() => loadConfig(live)).toThrow(/WEBHOOK_ALLOW_PRIVATE_TARGETS: must not be set with CHAIN_MODE=live/);
    expect(() => loadConfig({ ...live, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(ConfigError);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' })).toMatchObject({ WEBHOOK_ALLOW_PRIVATE_TARGETS: true, CHAIN_MODE: 'devnet' });
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: '0', CHAIN_MODE: 'live' })).toMatchObject({ WEBHOOK_ALLOW_PRIVATE_TARGETS: false, CHAIN_MODE: 'live' });
  });

  it('the daemon process refuses to start live with it: exit 78 (EX_CONFIG) and a message naming the variable', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-private-live-'));
    const p = spawnTs('src/main.ts', { CHAIN_MODE: 'live', WEBHOOK_ALLOW_PRIVATE_TARGETS: '1', DATA_DIR: dataDir, GRPC_PORT: '0' });
    expect(await p.exited()).toBe(78);
    expect(p.output()).toMatch(/invalid configuration: WEBHOOK_ALLOW_PRIVATE_TARGETS: must not be set with CHAIN_MODE=live/);
    // Refused before anything was set up: no key material, no database.
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  describe('start-up log line', () => {
    let stack: WebhookStack | undefined;
    let node: HardhatNode | undefined;
    afterEach(async () => {
      await stack?.stop();
      stack = undefined;
    });
    afterAll(async () => {
      await node?.stop();
    });

    it('a devnet daemon logs a warning', async () => {
      const { logger, lines } = captureLogger();
      stack = await startWebhookStack({}, {}, logger);
      const flagged = lines.filter((l) => String(l.msg).startsWith('WEBHOOK_ALLOW_PRIVATE_TARGETS=1'));
      expect(flagged).toEqual([expect.objectContaining({ level: 40, msg: PRIVATE_TARGETS_WARNING })]);
    });

    it('a devnet daemon with a live network (<CODE>_RPC_URL) starts, and logs at error level naming the live network', async () => {
      node = await startHardhatNode();
      const chain = new TestChain(node.url);
      const token = await chain.deployToken(6);
      const { logger, lines } = captureLogger();
      stack = await startWebhookStack({}, { POLYGON_RPC_URL: node.url, POLYGON_CHAIN_ID: '31337', POLYGON_TOKEN_ADDRESS: token, POLYGON_CONFIRMATIONS: '2' }, logger);
      expect(stack.daemon.config.CHAIN_MODE).toBe('devnet');
      const flagged = lines.filter((l) => String(l.msg).startsWith('WEBHOOK_ALLOW_PRIVATE_TARGETS=1'));
      expect(flagged).toHaveLength(1);
      expect(flagged[0]).toMatchObject({ level: 50, liveNetworks: ['POLYGON'] });
      expect(flagged[0]!.msg).toBe(`${PRIVATE_TARGETS_WARNING}, but these networks run live: POLYGON`);
    });
  });
});
