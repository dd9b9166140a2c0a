import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Address } from 'viem';
import { status, type ServiceError } from '@grpc/grpc-js';
import { toBaseUnits } from '../../src/chains/amount';
import { createChainAdapters } from '../../src/chains/registry';
import { evmLiveOptions } from '../../src/chains/evm';
import { loadConfig } from '../../src/config/config';
import { ERROR_CODE_KEY } from '../../src/grpc/errors';
import { cliJson, watcher } from '../operator/support';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createMerchant, eventually, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { startHardhatNode, type HardhatNode } from './support/hardhat-node';
import { TestChain } from './support/test-chain';

let stackEnv: Record<string, string> = {};

let node: HardhatNode;
let chain: TestChain;
let usdt6: Address;
let usdt18: Address;
let db: TestDatabase;
let dataDir: string;
let stack: Stack | null = null;
let m: MerchantCredentials;

async function start(): Promise<Stack> {
  stack = await startStack({ database: db, dataDir, env: stackEnv });
  return stack;
}

beforeAll(async () => {
  node = await startHardhatNode();
  chain = new TestChain(node.url);
  [usdt6, usdt18] = [await chain.deployToken(6), await chain.deployToken(18)];
  await chain.mint(usdt6, chain.funder.address, 10n ** 12n);
  await chain.mint(usdt18, chain.funder.address, 10n ** 24n);
  stackEnv = {
    // The hardhat node serves chain 31337; without <CODE>_CHAIN_ID the daemon expects the real chain id.
    POLYGON_RPC_URL: node.url,
    POLYGON_CHAIN_ID: '31337',
    POLYGON_TOKEN_ADDRESS: usdt6,
    POLYGON_CONFIRMATIONS: '3',
    POLYGON_POLL_INTERVAL_MS: '100',
    BEP20_RPC_URL: node.url,
    BEP20_CHAIN_ID: '31337',
    BEP20_TOKEN_ADDRESS: usdt18,
    BEP20_CONFIRMATIONS: '3',
    BEP20_POLL_INTERVAL_MS: '100',
    METRICS_PORT: '0',
  };
  db = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-evm-daemon-'));
  await start();
  m = await createMerchant(stack!);
}, 60_000);

afterAll(async () => {
  await stack?.stop();
  await db?.drop();
  await node?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

async function invoice(network: 'POLYGON' | 'BEP20', amount: string) {
  const res = await signed(stack!, m, 'POST', '/v1/invoices', { amount, network });
  if (res.status !== 201) throw new Error(`create invoice: ${res.status} ${res.text}`);
  return res.body as { uuid: string; address: string; pay_amount: string; required_confirmations: number };
}

async function payments(uuid: string): Promise<number> {
  const rows = await stack!.daemon.orm.em.fork().getConnection().execute<{ n: string }[]>('select count(*) as n from invoice_payments where invoice_uuid = ?', [uuid]);
  return Number(rows[0]!.n);
}

describe('daemon on a hardhat node (POLYGON and BEP20 live)', () => {
  it.each([
    ['POLYGON', 6],
    ['BEP20', 18],
  ] as const)('%s (%i decimals): an invoice paid on the node goes confirming -> paid as blocks are mined', async (network, decimals) => {
    const inv = await invoice(network, '10');
    expect(inv.required_confirmations).toBe(3);
    const token = network === 'POLYGON' ? usdt6 : usdt18;
    const tx = await chain.transfer(token, inv.address, toBaseUnits(inv.pay_amount, decimals));
    const confirming = await waitForStatus(stack!, m, inv.uuid, 'confirming', 15_000);
    expect(confirming).toMatchObject({ tx_hash: tx, received_amount: inv.pay_amount });
    await chain.mine(2);
    const paid = await waitForStatus(stack!, m, inv.uuid, 'paid', 15_000);
    expect(paid).toMatchObject({ confirmations: 3, received_amount: inv.pay_amount });
    expect(await payments(inv.uuid)).toBe(1);
  });

  it('stopped mid-confirmation, blocks mined while down: after restart it catches up and credits once', async () => {
    const before = (await signed(stack!, m, 'GET', '/v1/balance')).body as { available: string };
    const inv = await invoice('POLYGON', '7');
    await chain.transfer(usdt6, inv.address, toBaseUnits(inv.pay_amount, 6));
    await waitForStatus(stack!, m, inv.uuid, 'confirming', 15_000);
    await stack!.stop(); // the database survives; the watcher's cursor is in it
    await chain.mine(6);
    await start();
    const paid = await waitForStatus(stack!, m, inv.uuid, 'paid', 15_000);
    expect(paid.received_amount).toBe(inv.pay_amount);
    expect(await payments(inv.uuid)).toBe(1);
    const after = (await signed(stack!, m, 'GET', '/v1/balance')).body as { available: string };
    // Credited once: exactly the invoice amount (buyer pays the fees) more than before.
    expect(toBaseUnits(after.available, 6) - toBaseUnits(before.available, 6)).toBe(7_000_000n);
  });
});

describe('reorg on the node (daemon level)', () => {
  it('evm_snapshot/evm_revert and a different chain: the vanished transfer is retracted, the one on the new chain credited once', async () => {
    const before = (await signed(stack!, m, 'GET', '/v1/balance')).body as { available: string };
    const inv = await invoice('POLYGON', '5');
    await chain.mint(usdt6, chain.other.address, 10n ** 9n);
    const snap = await chain.snapshot();
    const vanished = await chain.transfer(usdt6, inv.address, toBaseUnits(inv.pay_amount, 6));
    await waitForStatus(stack!, m, inv.uuid, 'confirming', 15_000);
    await chain.revert(snap);
    // The new branch: another transfer at the same height, then enough blocks to finalize it.
    const kept = await chain.transfer(usdt6, inv.address, toBaseUnits(inv.pay_amount, 6), chain.other);
    expect(kept).not.toBe(vanished);
    await chain.mine(4);
    const paid = await waitForStatus(stack!, m, inv.uuid, 'paid', 20_000);
    const byHash = Object.fromEntries((paid.payments as { tx_hash: string; status: string }[]).map((p) => [p.tx_hash, p.status]));
    expect(byHash).toEqual({ [vanished]: 'reverted', [kept]: 'confirmed' });
    expect(paid.received_amount).toBe(inv.pay_amount);
    const after = (await signed(stack!, m, 'GET', '/v1/balance')).body as { available: string };
    expect(toBaseUnits(after.available, 6) - toBaseUnits(before.available, 6)).toBe(5_000_000n);
  });
});

describe('RPC metrics', () => {
  it('every JSON-RPC round trip of a live network is timed by method and outcome', async () => {
    const text = await (await fetch(`http://127.0.0.1:${stack!.daemon.metricsPort}/metrics`)).text();
    const count = (method: string): number => Number(new RegExp(`chainpay_chain_rpc_duration_seconds_count\\{network="POLYGON",method="${method}",outcome="ok"\\} (\\d+)`).exec(text)?.[1] ?? 0);
    expect(count('eth_getLogs')).toBeGreaterThan(0);
    expect(count('eth_blockNumber')).toBeGreaterThan(0);
  });
});

describe('chain id and finality depth of a live network', () => {
  it('without <CODE>_CHAIN_ID the RPC must serve the real chain: a hardhat node (31337) is refused at init', async () => {
    const config = loadConfig({ POLYGON_RPC_URL: node.url, POLYGON_TOKEN_ADDRESS: usdt6 });
    const { adapters } = createChainAdapters({
      networks: ['POLYGON'],
      mode: 'live',
      keys: { mnemonic: 'test test test test test test test test test test test junk' },
      clock: stack!.daemon.clock,
      devnet: { blockIntervalMs: 0 },
      live: evmLiveOptions(config.networks),
    });
    const adapter = adapters.get('POLYGON')!;
    await expect(adapter.init()).rejects.toMatchObject({ code: 'chain_id_mismatch', details: { expected: 137, actual: 31337 } });
    await adapter.close();
  });

  it("required_confirmations cannot be lowered live below the watcher's finality depth (FAILED_PRECONDITION); raising is allowed", async () => {
    const update = (n: number) => rpc((cb) => stack!.clients.networks.updateNetworkFees({ code: 'POLYGON', required_confirmations: n }, stack!.operator, cb));
    const refused = (await update(2).catch((e: ServiceError) => e)) as ServiceError;
    expect(refused.code).toBe(status.FAILED_PRECONDITION);
    expect(refused.metadata.get(ERROR_CODE_KEY)).toEqual(['confirmations_below_finality']);
    expect(refused.details).toMatch(/finality depth 3/);
    await expect(update(5)).resolves.toMatchObject({ required_confirmations: 5 });
    await expect(update(3)).resolves.toMatchObject({ required_confirmations: 3 });
  });
});

// Last: it halts both watchers of this node.
describe('a reorg deeper than finality while the daemon is down', () => {
  it('the saved last final block is checked at start: replaced -> the watcher halts (reorg_beyond_finality, alert)', async () => {
    const cursorOf = async (network: string) =>
      (
        await stack!.daemon.orm.em
          .fork()
          .getConnection()
          .execute<{ height: string; final_height: string | null; final_hash: string | null }[]>(
            "select cursor->>'height' as height, finalized->>'height' as final_height, finalized->>'hash' as final_hash from watcher_cursors where network = ?",
            [network],
          )
      )[0]!;
    const base = await chain.head();
    const snapshot = await chain.snapshot();
    await chain.mine(5);
    const saved = await eventually(
      async () => {
        const c = await cursorOf('POLYGON');
        return Number(c.height) === base + 5 && Number(c.final_height) >= base + 2 ? c : undefined;
      },
      15_000,
      'the cursor and a final block above the fork saved',
    );
    expect(saved.final_hash).toBe(await chain.blockHash(Number(saved.final_height)));
    await stack!.stop();

    await chain.revert(snapshot);
    await chain.mint(usdt6, chain.other.address, 1n); // a different block at base + 1
    await chain.mine(6);
    expect(await chain.blockHash(Number(saved.final_height))).not.toBe(saved.final_hash);
    await start();

    const halted = await eventually(
      async () => {
        const w = await watcher(stack!, 'POLYGON');
        return w.state === 'halted' ? w : undefined;
      },
      15_000,
      'the POLYGON watcher to halt',
    );
    expect(halted.last_error).toMatch(/reorg deeper than finality \(final block \d+ replaced\)/);
    expect(Number(halted.cursor)).toBe(base + 5); // nothing of the new branch was applied
    expect(await cursorOf('POLYGON')).toEqual(saved);
    const text = await (await fetch(`http://127.0.0.1:${stack!.daemon.metricsPort}/metrics`)).text();
    expect(text).toMatch(/^chainpay_watcher_alerts_total\{network="POLYGON",code="reorg_beyond_finality"\} 1$/m);
    // Resuming runs the check again: halted again, until an operator rescans below the fork.
    await cliJson(stack!, ['watchers', 'resume', '--network', 'POLYGON']);
    await eventually(async () => ((await watcher(stack!, 'POLYGON')).state === 'halted' ? true : undefined), 15_000, 'halted again after resume');
    expect(Number((await watcher(stack!, 'POLYGON')).cursor)).toBe(base + 5);
  }, 60_000);
});
