import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { toBaseUnits } from '../../src/chains/amount';
import { InvoiceServiceClient, type CreateInvoiceResponse, type Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { MerchantServiceClient, type Balance, type CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { grpcPortFrom, spawnTs, type Spawned } from '../support/processes';
import { eventually, rpc } from '../support/stack';
import { TronTestChain } from './support/tron-chain';

jest.setTimeout(150_000);

let chain: TronTestChain;
let db: TestDatabase;
const running: Spawned[] = [];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-tron-kill-'));

beforeAll(async () => {
  chain = await TronTestChain.start();
  chain.server.solidLag = 2;
  db = await createTestDatabase('cp_tronkill');
}, 90_000);

afterAll(async () => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await db?.drop();
  await chain?.stop();
});

async function start(): Promise<{ proc: Spawned; merchants: MerchantServiceClient; invoices: InvoiceServiceClient }> {
  const proc = spawnTs('src/main.ts', {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    GRPC_PORT: '0',
    TRC20_RPC_URL: chain.url,
    TRC20_TOKEN_ADDRESS: chain.usdt,
    TRC20_CONFIRMATIONS: '4',
    TRC20_POLL_INTERVAL_MS: '50',
  });
  running.push(proc);
  const addr = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/))}`;
  const creds = grpc.credentials.createInsecure();
  return { proc, merchants: new MerchantServiceClient(addr, creds), invoices: new InvoiceServiceClient(addr, creds) };
}

const md = (merchantId?: string): grpc.Metadata => {
  const m = new grpc.Metadata();
  m.set('authorization', `Bearer ${fs.readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim()}`);
  if (merchantId) m.set('x-merchant-id', merchantId);
  return m;
};

it('TRC20 on the harness: the daemon SIGKILLed mid-confirmation, blocks produced while it is down, catches up and credits once', async () => {
  let d = await start();
  const merchantId = (await rpc<CreateMerchantResponse>((cb) => d.merchants.createMerchant({ name: 'tron kill' }, md(), cb))).merchant!.merchant_id;
  const inv = (await rpc<CreateInvoiceResponse>((cb) => d.invoices.createInvoice({ amount: '12', network: 'TRC20' }, md(merchantId), cb))).invoice!;
  await chain.pay(inv.address!, toBaseUnits(inv.pay_amount, 6));
  await chain.produce(1);
  await eventually(async () => ((await rpc<Invoice>((cb) => d.invoices.getInvoice({ uuid: inv.uuid }, md(merchantId), cb))).status === 'confirming' ? true : undefined), 20_000);

  d.proc.child.kill('SIGKILL');
  await d.proc.exited();
  await chain.produce(30);

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
