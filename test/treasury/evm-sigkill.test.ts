import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { Address } from 'viem';
import { toBaseUnits } from '../../src/chains/amount';
import { InvoiceServiceClient, type CreateInvoiceResponse, type Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { MerchantServiceClient, type Balance, type CreateMerchantResponse } from '../../src/grpc/generated/chainpay/v1/merchants';
import { testCodec, TEST_MNEMONIC } from '../evm/support/adapter';
import { startHardhatNode, type HardhatNode } from '../evm/support/hardhat-node';
import { TestChain } from '../evm/support/test-chain';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { grpcPortFrom, spawnTs, type Spawned } from '../support/processes';
import { eventually, rpc } from '../support/stack';
import pg from 'pg';
import { run } from '../../src/cli/main';
import { Dec } from '../../src/domain/decimal';

jest.setTimeout(150_000);

/**
 * The daemon (a real process, POLYGON live on hardhat) pays invoices into pool addresses, and its
 * treasury sweeps them; SIGKILLed right after broadcasting the gas top-up, then right after
 * broadcasting the token transfer, and restarted: each address is swept once, no top-up is sent
 * twice, the merchant's balance never moves, the ledger equals the chain.
 */
let node: HardhatNode;
let chain: TestChain;
let usdt: Address;
let db: TestDatabase;
const running: Spawned[] = [];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-sweep-kill-'));
const hot = testCodec().hotWallet().address as Address;

beforeAll(async () => {
  node = await startHardhatNode();
  chain = new TestChain(node.url);
  usdt = await chain.deployToken(6);
  await chain.mint(usdt, chain.funder.address, 10n ** 12n);
  await chain.fundEth(hot, '5');
  db = await createTestDatabase('cp_sweepkill');
}, 60_000);

afterEach(async () => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await Promise.all(running.map((p) => p.exited()));
});

afterAll(async () => {
  for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await db?.drop();
  await node?.stop();
});

let grpcAddress = '';

/** `chainpay <argv> --json` against the running daemon. */
async function cli(...argv: string[]): Promise<{ code: number; body: Record<string, unknown> | null; err: string }> {
  let out = '';
  let err = '';
  const io = { env: { CHAINPAY_GRPC_ADDR: grpcAddress, DATA_DIR: dataDir }, stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) } };
  const code = await run([...argv, '--json'], io);
  return { code, body: out ? (JSON.parse(out) as Record<string, unknown>) : null, err };
}

async function start(killAt?: string): Promise<{ proc: Spawned; merchants: MerchantServiceClient; invoices: InvoiceServiceClient }> {
  const proc = spawnTs('src/main.ts', {
    DATABASE_URL: db.url,
    DATA_DIR: dataDir,
    GRPC_PORT: '0',
    HD_MNEMONIC: TEST_MNEMONIC,
    POLYGON_RPC_URL: node.url,
    POLYGON_CHAIN_ID: '31337',
    POLYGON_TOKEN_ADDRESS: usdt,
    POLYGON_CONFIRMATIONS: '2',
    POLYGON_POLL_INTERVAL_MS: '100',
    TREASURY_INTERVAL_SECONDS: '1',
    CHAINPAY_TEST_KILL_AT: killAt,
  });
  running.push(proc);
  const addr = `127.0.0.1:${grpcPortFrom(await proc.waitFor(/gRPC server listening/))}`;
  grpcAddress = addr;
  const creds = grpc.credentials.createInsecure();
  return { proc, merchants: new MerchantServiceClient(addr, creds), invoices: new InvoiceServiceClient(addr, creds) };
}

const md = (merchantId?: string): grpc.Metadata => {
  const m = new grpc.Metadata();
  m.set('authorization', `Bearer ${fs.readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim()}`);
  if (merchantId) m.set('x-merchant-id', merchantId);
  return m;
};

async function query<T>(sql: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query(sql, values)).rows as T[];
  } finally {
    await c.end();
  }
}

/** Mines a block every 100 ms while `fn` runs (confirmations for the deposits and the sweeps). */
async function mining<T>(fn: () => Promise<T>): Promise<T> {
  let on = true;
  const loop = (async () => {
    while (on) {
      await chain.mine(1);
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    return await fn();
  } finally {
    on = false;
    await loop;
  }
}

it.each(['sweep:topup-sent', 'sweep:transfer-sent'])('killed at %s: swept once after the restart, one top-up, ledger equal to the chain', async (killAt) => {
  let d = await start(killAt);
  const merchantId = (await rpc<CreateMerchantResponse>((cb) => d.merchants.createMerchant({ name: `sweep ${killAt}` }, md(), cb))).merchant!.merchant_id;
  const inv = (await rpc<CreateInvoiceResponse>((cb) => d.invoices.createInvoice({ amount: '25', network: 'POLYGON' }, md(merchantId), cb))).invoice!;
  await chain.transfer(usdt, inv.address!, toBaseUnits(inv.pay_amount, 6));
  const hotNonceBefore = await chain.public.getTransactionCount({ address: hot });
  // The invoice is paid at finality, then the treasury's pass sweeps the address and dies at the kill point.
  await mining(async () => {
    await eventually(async () => ((await rpc<Invoice>((cb) => d.invoices.getInvoice({ uuid: inv.uuid }, md(merchantId), cb))).status === 'paid' ? true : undefined), 30_000);
    await d.proc.waitFor(/CHAINPAY_TEST_KILL_AT reached/);
    await d.proc.exited();
  });
  const balance = async (): Promise<Balance> => rpc<Balance>((cb) => d.merchants.getBalance({ merchant_id: merchantId }, md(merchantId), cb));
  d = await start();
  const credited = await balance();
  await mining(() =>
    eventually(
      async () => ((await query<{ n: string }>(`select count(*)::text as n from sweeps where address = $1 and outcome = 'completed'`, [inv.address]))[0]!.n === '1' ? true : undefined),
      60_000,
    ),
  );
  const rows = await query<{ outcome: string; amount: string }>(`select outcome, trim_scale(amount)::text as amount from sweeps where address = $1`, [inv.address]);
  expect(rows).toEqual([{ outcome: 'completed', amount: inv.pay_amount }]);
  // One top-up from the hot wallet: its nonce moved by exactly one.
  expect((await chain.public.getTransactionCount({ address: hot })) - hotNonceBefore).toBe(1);
  expect(await chain.balanceOf(usdt, inv.address!)).toBe(0n);
  // Merchants never move with a sweep; the ledger's accounts equal the chain.
  expect(await balance()).toEqual(credited);
  const [acc] = await query<{ transit: string | null; fees: string | null }>(
    `select (select sum(amount)::text from ledger_entries where account = 'chain:POLYGON:in_transit') as transit,
            (select (-sum(amount))::text from ledger_entries where account = 'gas:POLYGON:fees') as fees`,
  );
  expect(Number(acc!.transit ?? '0')).toBe(0);
  const hashes = await query<{ h: string }>(`select topup_tx_hash as h from sweeps where address = $1 union all select transfer_tx_hash from sweeps where address = $1`, [inv.address]);
  let wei = 0n;
  for (const { h } of hashes) {
    const r = await chain.public.getTransactionReceipt({ hash: h as Address });
    wei += r.gasUsed * r.effectiveGasPrice;
  }
  const before = await query<{ s: string | null }>(
    `select (-sum(e.amount))::text as s from ledger_entries e join journals j on j.id = e.journal_id where e.account = 'gas:POLYGON:fees' and j.reference like $1`,
    [`sweep:${(await query<{ id: string }>(`select id from sweeps where address = $1`, [inv.address]))[0]!.id}:%`],
  );
  expect(new Dec(before[0]!.s!).times(1e18).toFixed()).toBe(wei.toString());
  expect(acc!.fees).not.toBeNull();

  // The operator's view: chainpay treasury status / sweep (nothing left to move; a dry run says so).
  const status = await cli('treasury', 'status', '--network', 'POLYGON');
  expect(status.code).toBe(0);
  const net = (status.body!.networks as Record<string, unknown>[])[0]!;
  expect(net).toMatchObject({ network: 'POLYGON', sweepable: true, automatic: true, sweeps_in_flight: 0, gas_coin: 'POL' });
  const accounts = Object.fromEntries((net.accounts as { name: string; balance: string }[]).map((a) => [a.name, a.balance]));
  expect(accounts.in_transit).toBe('0');
  expect(accounts.hot).toBe(net.hot_usdt);
  expect(accounts.gas_hot).toBe(net.hot_gas);
  const dry = await cli('treasury', 'sweep', '--network', 'POLYGON', '--dry-run');
  expect(dry.code).toBe(0);
  expect((dry.body!.sweeps as { target: string }[]).filter((x) => x.target !== '')).toEqual([]);
  const refused = await cli('treasury', 'sweep', '--network', 'TRC20');
  expect(refused.code).not.toBe(0);
  expect(refused.err).toMatch(/network_not_found/); // TRC20 does not run in this daemon
});
