import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Address } from 'viem';
import { toBaseUnits } from '../../src/chains/amount';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createMerchant, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
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
    POLYGON_RPC_URL: node.url, POLYGON_TOKEN_ADDRESS: usdt6, POLYGON_CONFIRMATIONS: '3',
    BEP20_RPC_URL: node.url, BEP20_TOKEN_ADDRESS: usdt18, BEP20_CONFIRMATIONS: '3',
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
