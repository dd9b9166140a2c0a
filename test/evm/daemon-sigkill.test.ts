import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Address } from 'viem';
import { toBaseUnits } from '../../src/chains/amount';
import { spawnTs, grpcPortFrom, type Spawned } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { rpc, eventually, startStack } from '../support/stack';
import { DaemonClock } from '../../src/actors/daemon-clock';
import { startHardhatNode, type HardhatNode } from './support/hardhat-node';
import { TestChain } from './support/test-chain';
import { MerchantServiceClient, type CreateMerchantResponse, type Balance } from '../../src/grpc/generated/chainpay/v1/merchants';
import { InvoiceServiceClient, type CreateInvoiceResponse, type Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { OperatorServiceClient } from '../../src/grpc/generated/chainpay/v1/operator';

jest.setTimeout(120_000);

let node: HardhatNode;
let chain: TestChain;
let usdt: Address;
let db: TestDatabase;
const running: Spawned[] = [];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-evm-kill-'));

beforeAll(async () => {
  node = await startHardhatNode();
  chain = new TestChain(node.url);
  usdt = await chain.deployToken(6);
  await chain.mint(usdt, chain.funder.address, 10n ** 12n);
  db = await createTestDatabase('cp_evmkill');
}, 60_000);

afterAll(async () => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await db?.drop();
  await node?.stop();
});

async function start(): Promise<{ proc: Spawned; merchants: MerchantServiceClient; invoices: InvoiceServiceClient; operator: OperatorServiceClient }> {
  const proc = spawnTs('src/main.ts', {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    GRPC_PORT: '0',
    POLYGON_RPC_URL: node.url,
    POLYGON_CHAIN_ID: '31337',
    POLYGON_TOKEN_ADDRESS: usdt,
    POLYGON_CONFIRMATIONS: '4',
    POLYGON_POLL_INTERVAL_MS: '100',
  });
  running.push(proc);
  const addr = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/))}`;
  const creds = grpc.credentials.createInsecure();
  return { proc, merchants: new MerchantServiceClient(addr, creds), invoices: new InvoiceServiceClient(addr, creds), operator: new OperatorServiceClient(addr, creds) };
}

const md = (merchantId?: string): grpc.Metadata => {
  const m = new grpc.Metadata();
  m.set('authorization', `Bearer ${fs.readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim()}`);
  if (merchantId) m.set('x-merchant-id', merchantId);
  return m;
};

it('POLYGON on a hardhat node: the daemon SIGKILLed mid-confirmation, blocks mined while it is down, catches up and credits once', async () => {
  let d = await start();
  const merchantId = (await rpc<CreateMerchantResponse>((cb) => d.merchants.createMerchant({ name: 'evm kill' }, md(), cb))).merchant!.merchant_id;
  const inv = (await rpc<CreateInvoiceResponse>((cb) => d.invoices.createInvoice({ amount: '12', network: 'POLYGON' }, md(merchantId), cb))).invoice!;
  await chain.transfer(usdt, inv.address!, toBaseUnits(inv.pay_amount, 6));
  await eventually(async () => ((await rpc<Invoice>((cb) => d.invoices.getInvoice({ uuid: inv.uuid }, md(merchantId), cb))).status === 'confirming' ? true : undefined), 20_000);

  d.proc.child.kill('SIGKILL');
  await d.proc.exited();
  await chain.mine(10);

  d = await start();
  const paid = await eventually(async () => {
    const i = await rpc<Invoice>((cb) => d.invoices.getInvoice({ uuid: inv.uuid }, md(merchantId), cb));
    return i.status === 'paid' ? i : undefined;
  }, 30_000);
  expect(paid.payments).toHaveLength(1);
  expect(paid.received_amount).toBe(inv.pay_amount);
  const balance = await rpc<Balance>((cb) => d.merchants.getBalance({ merchant_id: merchantId }, md(merchantId), cb));
  expect(balance.available).toBe('12');
  d.proc.child.kill('SIGTERM');
  expect(await d.proc.exited()).toBe(0);
});

it('POLYGON on a hardhat node: a payment mined before expires_at but seen after it (catch-up in a final range) is in time', async () => {
  // In process: a live daemon has no devnet clock, so the test drives the daemon's clock itself.
  const clock = new DaemonClock();
  const database = await createTestDatabase('cp_evmintime');
  const stack = await startStack({
    database,
    clock,
    env: { POLYGON_RPC_URL: node.url, POLYGON_CHAIN_ID: '31337', POLYGON_TOKEN_ADDRESS: usdt, POLYGON_CONFIRMATIONS: '4', POLYGON_POLL_INTERVAL_MS: '100' },
  });
  try {
    const d = stack.clients;
    const merchantId = (await rpc<CreateMerchantResponse>((cb) => d.merchants.createMerchant({ name: 'evm in time' }, stack.operator, cb))).merchant!.merchant_id;
    const mmd = stack.operator.clone();
    mmd.set('x-merchant-id', merchantId);
    const inv = (await rpc<CreateInvoiceResponse>((cb) => d.invoices.createInvoice({ amount: '7', network: 'POLYGON', lifetime_minutes: 5 }, mmd, cb))).invoice!;
    await rpc((cb) => d.operator.pauseWatcher({ network: 'POLYGON' }, stack.operator, cb));
    // While the watcher is paused: a few blocks, the payment (in time, in the middle of what will be
    // one final catch-up range), then ten minutes of chain time and more blocks.
    await chain.mine(3);
    await chain.transfer(usdt, inv.address!, toBaseUnits(inv.pay_amount, 6));
    await chain.rpc('evm_increaseTime', [600]);
    await chain.mine(12);
    clock.advance(600_000);
    // Past expires_at on the clock, the invoice waits for its watcher's chain time.
    await new Promise((r) => setTimeout(r, 500));
    expect((await rpc<Invoice>((cb) => d.invoices.getInvoice({ uuid: inv.uuid }, mmd, cb))).status).toBe('pending');

    await rpc((cb) => d.operator.resumeWatcher({ network: 'POLYGON' }, stack.operator, cb));
    // The range's first and last headers straddle expires_at: the watcher asks for the payment
    // block's own time, which is before expires_at, so the payment is in time (not paid_late).
    const paid = await eventually(async () => {
      const i = await rpc<Invoice>((cb) => d.invoices.getInvoice({ uuid: inv.uuid }, mmd, cb));
      return i.status === 'paid' ? i : undefined;
    }, 30_000);
    expect(paid.paid_late).toBe(false);
    const events = await stack.daemon.orm.em.fork().execute<{ type: string }[]>('select type from outbox_events where aggregate_id = ? order by seq', [inv.uuid]);
    expect(events.map((e) => e.type)).toEqual(['invoice.confirming', 'invoice.paid']);
  } finally {
    await stack.stop();
    await database.drop();
  }
});
