import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, ConfigError } from '../../src/config/config';
import { PRIVATE_TARGETS_WARNING } from '../../src/webhooks/private-targets';
import { spawnTs } from '../support/processes';
import { startWebhookStack, type WebhookStack } from './stack';
import { captureLogger } from './support';

jest.setTimeout(60_000);

/** WEBHOOK_ALLOW_PRIVATE_TARGETS=1 lifts the address guard: local testing only, never live. */
describe('WEBHOOK_ALLOW_PRIVATE_TARGETS is for local testing only', () => {
  it('is refused in live mode (CHAIN_MODE=live or an RPC URL), naming the variable; allowed on devnet; live without it is fine', () => {
    const live = { WEBHOOK_ALLOW_PRIVATE_TARGETS: '1', CHAIN_MODE: 'live', POLYGON_RPC_URL: 'http://127.0.0.1:8545' };
    expect(() => loadConfig(live)).toThrow(ConfigError);
    expect(() => loadConfig(live)).toThrow(/WEBHOOK_ALLOW_PRIVATE_TARGETS: must not be set in live mode/);
    expect(() => loadConfig({ ...live, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...live, CHAIN_MODE: undefined })).toThrow(/WEBHOOK_ALLOW_PRIVATE_TARGETS: must not be set in live mode \(POLYGON_RPC_URL is set/);
    expect(loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: '1' })).toMatchObject({ WEBHOOK_ALLOW_PRIVATE_TARGETS: true, CHAIN_MODE: 'devnet' });
    expect(loadConfig({ ...live, WEBHOOK_ALLOW_PRIVATE_TARGETS: '0' })).toMatchObject({ WEBHOOK_ALLOW_PRIVATE_TARGETS: false, CHAIN_MODE: 'live' });
  });

  it('the daemon process refuses to start live with it: exit 78 (EX_CONFIG) and a message naming the variable', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-private-live-'));
    const p = spawnTs('src/main.ts', { POLYGON_RPC_URL: 'http://127.0.0.1:9', WEBHOOK_ALLOW_PRIVATE_TARGETS: '1', DATA_DIR: dataDir, GRPC_PORT: '0' });
    expect(await p.exited()).toBe(78);
    expect(p.output()).toMatch(/invalid configuration: WEBHOOK_ALLOW_PRIVATE_TARGETS: must not be set in live mode/);
    // Refused before anything was set up: no key material, no database.
    expect(fs.readdirSync(dataDir)).toEqual([]);
  });

  describe('start-up log line', () => {
    let stack: WebhookStack | undefined;
    afterEach(async () => {
      await stack?.stop();
      stack = undefined;
    });

    it('a devnet daemon logs a warning', async () => {
      const { logger, lines } = captureLogger();
      stack = await startWebhookStack({}, {}, logger);
      const flagged = lines.filter((l) => String(l.msg).startsWith('WEBHOOK_ALLOW_PRIVATE_TARGETS=1'));
      expect(flagged).toEqual([expect.objectContaining({ level: 40, msg: PRIVATE_TARGETS_WARNING })]);
    });
  });
});
