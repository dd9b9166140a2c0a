import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Address } from 'viem';
import { toBaseUnits } from '../../src/chains/amount';
import { spawnTs, grpcPortFrom, type Spawned } from '../support/processes';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { rpc, eventually } from '../support/stack';
import { startHardhatNode, type HardhatNode } from './support/hardhat-node';
import { TestChain } from './support/test-chain';
import { MerchantServiceClient, type CreateMerchantResponse, type Balance } from '../../src/grpc/generated/chainpay/v1/merchants';
import { InvoiceServiceClient, type CreateInvoiceResponse, type Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';

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

async function start(): Promise<{ proc: Spawned; merchants: MerchantServiceClient; invoices: InvoiceServiceClient }> {
  const proc = spawnTs('src/main.ts', {
    DATABASE_URL: db.url, DATA_DIR: dataDir, GRPC_PORT: '0', DEVNET_BLOCK_MS: '0',
    POLYGON_RPC_URL: node.url, POLYGON_CHAIN_ID: '31337', POLYGON_TOKEN_ADDRESS: usdt, POLYGON_CONFIRMATIONS: '4',
  });
  running.push(proc);
  const addr = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/))}`;
  return { proc, merchants: new MerchantServiceClient(addr, grpc.credentials.createInsecure()), invoices: new InvoiceServiceClient(addr, grpc.credentials.createInsecure()) };
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
