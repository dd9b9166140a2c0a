import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Address } from '@ton/core';
import { toBaseUnits } from '../../src/chains/amount';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createMerchant, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { TEST_MNEMONIC } from './support/adapter';
import { startRateLimitProxy, type RateLimitProxy } from './support/rate-limit-proxy';
import { SandboxChain } from './support/sandbox-chain';
import { startToncenter, type ToncenterServer } from './support/toncenter-server';

jest.setTimeout(120_000);

/**
 * A live daemon on toncenter's terms: the harness behind a proxy that answers 429 above 2 calls a
 * second, the daemon given TON_RPS=2 (as without an API key, scaled up to keep the test short).
 * Buyers type their memo as wallets let them: lower case, padded.
 */
const RPS = 2;
let chain: SandboxChain;
let server: ToncenterServer;
let proxy: RateLimitProxy;
let db: TestDatabase;
let stack: Stack | null = null;
let m: MerchantCredentials;
let dataDir: string;

beforeAll(async () => {
  chain = await SandboxChain.create();
  server = await startToncenter(chain);
  proxy = await startRateLimitProxy(server.url, RPS);
  db = await createTestDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-ton-budget-'));
  const env = {
    HD_MNEMONIC: TEST_MNEMONIC,
    TON_RPC_URL: proxy.url,
    TON_JETTON_MASTER: chain.usdt.address.toString(),
    TON_POLL_INTERVAL_MS: '200',
    TON_CONFIRMATIONS: '1',
    TON_RPS: String(RPS),
  };
  stack = await startStack({ env, database: db, dataDir });
  m = await createMerchant(stack);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await db?.drop();
  await proxy?.close();
  await server?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

interface Invoice {
  uuid: string;
  address: string;
  memo: string;
  pay_amount: string;
}

async function invoice(amount: string): Promise<Invoice> {
  const res = await signed(stack!, m, 'POST', '/v1/invoices', { amount, network: 'TON' });
  if (res.status !== 201) throw new Error(`create invoice: ${res.status} ${res.text}`);
  return res.body as Invoice;
}

async function payments(uuids: string[]): Promise<number> {
  const rows = await stack!.daemon.orm.em.fork().execute<{ n: string }[]>(`select count(*)::text as n from invoice_payments where invoice_uuid in (${uuids.map(() => '?').join(', ')})`, uuids);
  return Number(rows[0]!.n);
}

async function unattributedCount(): Promise<number> {
  const rows = await stack!.daemon.orm.em.fork().execute<{ n: string }[]>(`select count(*)::text as n from unattributed_deposits where network = 'TON'`);
  return Number(rows[0]!.n);
}

const units = (amount: string): bigint => toBaseUnits(amount, 6);

describe('TON on a rate-limited toncenter (TON_RPS) with memos typed by hand', () => {
  it('never asks above TON_RPS, and credits every deposit once, whatever the case of its memo', async () => {
    const invs = [await invoice('2'), await invoice('3'), await invoice('4'), await invoice('5')];
    expect(invs.every((i) => i.memo === i.memo.toUpperCase())).toBe(true);
    const typed = [invs[0]!.memo.toLowerCase(), `  ${invs[1]!.memo.slice(0, 4).toLowerCase()}${invs[1]!.memo.slice(4)}\n`, invs[2]!.memo, `\u200b${invs[3]!.memo.toLowerCase()} `];
    for (const [i, inv] of invs.entries()) await chain.pay({ to: Address.parse(inv.address), amount: units(inv.pay_amount), memo: typed[i]! });
    for (const inv of invs) {
      const paid = await waitForStatus(stack!, m, inv.uuid, 'paid', 60_000);
      expect(paid.payments).toHaveLength(1);
    }
    expect(await payments(invs.map((i) => i.uuid))).toBe(4);
    expect(await unattributedCount()).toBe(0);
    // What the daemon asked of the provider: never above its budget, so never refused.
    expect(proxy.refused()).toBe(0);
    expect(proxy.peak()).toBeLessThanOrEqual(RPS);
    expect(proxy.served.get('getAddressInformation') ?? 0).toBeGreaterThan(0);
  });

  it('a provider stricter than TON_RPS (429s) slows the watch down but loses no deposit', async () => {
    proxy.setRate(1);
    const before = proxy.refused();
    const invs = [await invoice('6'), await invoice('7')];
    for (const inv of invs) await chain.pay({ to: Address.parse(inv.address), amount: units(inv.pay_amount), memo: inv.memo.toLowerCase() });
    for (const inv of invs) await waitForStatus(stack!, m, inv.uuid, 'paid', 60_000);
    expect(proxy.refused()).toBeGreaterThan(before); // the provider did refuse calls: they were retried
    expect(await payments(invs.map((i) => i.uuid))).toBe(2);
    proxy.setRate(RPS);
  });
});
