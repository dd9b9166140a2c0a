import fs from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { createAddressCodec } from '../../src/chains/codecs';
import type { NetworkCode } from '../../src/domain/networks';
import { InvoiceServiceClient, type CreateInvoiceResponse } from '../../src/grpc/generated/chainpay/v1/invoices';
import { DevnetServiceClient } from '../../src/grpc/generated/chainpay/v1/devnet';
import { MerchantServiceClient } from '../../src/grpc/generated/chainpay/v1/merchants';
import { WithdrawalServiceClient, type WhitelistEntry } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { eventually, rpc, signed, type MerchantCredentials, type Stack } from '../support/stack';

/** Withdrawals run on TRC20 with a small confirmation count and a fee the minimum can meet. */
export const WD_ENV = { TRC20_CONFIRMATIONS: '3', TRC20_MIN_WITHDRAWAL: '1', TRC20_WITHDRAWAL_FEE: '1' };
export const DAY_S = 24 * 60 * 60;

/** A valid address of `network` that is none of ours (derived from `seed` only). */
export function addressOf(network: NetworkCode, seed: string): string {
  return createAddressCodec(network, {}).sampleAddress(`wd-test:${seed}`);
}

export interface Rpcs {
  readonly invoices: InvoiceServiceClient;
  readonly devnet: DevnetServiceClient;
  readonly withdrawals: WithdrawalServiceClient;
  readonly operator: grpc.Metadata;
  /** Metadata acting for one merchant (operator or service token plus x-merchant-id). */
  readonly forMerchant: (merchantId: string) => grpc.Metadata;
}

export function stackRpcs(stack: Stack): Rpcs {
  return {
    invoices: stack.clients.invoices,
    devnet: stack.clients.devnet,
    withdrawals: stack.clients.withdrawals,
    operator: stack.operator,
    forMerchant: (merchantId) => {
      const md = stack.operator.clone();
      md.set('x-merchant-id', merchantId);
      return md;
    },
  };
}

/** Credits `amount` to the merchant's available balance: a TRC20 invoice paid exactly on devnet (merchant_net = amount). */
/** Clients of a daemon process at `address` with the operator token of its DATA_DIR (crash tests). */
export function processRpcs(address: string, dataDir: string): { r: Rpcs; merchants: MerchantServiceClient; close(): void } {
  const creds = grpc.credentials.createInsecure();
  const operator = new grpc.Metadata();
  operator.set('authorization', `Bearer ${fs.readFileSync(path.join(dataDir, 'operator-token'), 'utf8').trim()}`);
  const clients = { invoices: new InvoiceServiceClient(address, creds), devnet: new DevnetServiceClient(address, creds), withdrawals: new WithdrawalServiceClient(address, creds) };
  const merchants = new MerchantServiceClient(address, creds);
  const r: Rpcs = {
    ...clients,
    operator,
    forMerchant: (merchantId) => {
      const md = operator.clone();
      md.set('x-merchant-id', merchantId);
      return md;
    },
  };
  return { r, merchants, close: () => [...Object.values(clients), merchants].forEach((c) => c.close()) };
}

export async function fund(r: Rpcs, merchantId: string, amount: string): Promise<void> {
  const md = r.forMerchant(merchantId);
  const res = await rpc<CreateInvoiceResponse>((cb) => r.invoices.createInvoice({ amount, network: 'TRC20' }, md, cb));
  const inv = res.invoice!;
  await rpc((cb) => r.devnet.pay({ network: 'TRC20', to: inv.address!, amount: inv.pay_amount }, r.operator, cb));
  await rpc((cb) => r.devnet.mine({ network: 'TRC20', blocks: inv.required_confirmations }, r.operator, cb));
  await eventually(
    async () => {
      const got = await rpc<{ status: string }>((cb) => r.invoices.getInvoice({ uuid: inv.uuid }, md, cb));
      return got.status === 'paid' ? true : undefined;
    },
    15_000,
    'funding invoice to be paid',
  );
}

export async function whitelist(r: Rpcs, merchantId: string, network: string, address: string): Promise<WhitelistEntry> {
  return rpc<WhitelistEntry>((cb) => r.withdrawals.addWhitelist({ merchant_id: merchantId, network, address }, r.operator, cb));
}

/**
 * A live daemon has no clock to advance (no DevnetService): the merchant's whitelist entries are
 * made as if added `seconds` ago, in the database, so they are past the 24-hour cooldown.
 */
export async function backdateWhitelist(databaseUrl: string, merchantId: string, seconds = DAY_S + 60): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const shift = `${seconds} seconds`;
    await client.query(`update withdrawal_whitelist set added_at = added_at - $2::interval, usable_at = usable_at - $2::interval where merchant_id = $1`, [merchantId, shift]);
  } finally {
    await client.end();
  }
}

export async function advance(r: Rpcs, seconds: number): Promise<void> {
  await rpc((cb) => r.devnet.advanceTime({ seconds: String(seconds) }, r.operator, cb));
}

export async function mine(r: Rpcs, blocks: number, network = 'TRC20'): Promise<void> {
  await rpc((cb) => r.devnet.mine({ network, blocks }, r.operator, cb));
}

export type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Until the payout was handed to the chain (the actor's committed state is `confirming`). */
export async function waitBroadcast(orm: MikroORM, uuid: string, timeoutMs = 10_000): Promise<void> {
  await eventually(
    async () => {
      const rows = await orm.em.fork().execute<{ c: boolean }[]>(`select (actor_snapshot->'value'->'processing')::text like '%confirming%' as c from withdrawals where uuid = ?`, [uuid]);
      return rows[0]?.c ? true : undefined;
    },
    timeoutMs,
    `withdrawal ${uuid} to be broadcast`,
  );
}

/** GET /v1/withdrawals/{uuid} until `status`. */
export async function waitForWithdrawal(stack: Stack, m: MerchantCredentials, uuid: string, status: string, timeoutMs = 15_000): Promise<Body> {
  return eventually(
    async () => {
      const res = await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`);
      return res.body?.status === status ? res.body : undefined;
    },
    timeoutMs,
    `withdrawal ${uuid} to be ${status}`,
  );
}

export async function balance(stack: Stack, m: MerchantCredentials): Promise<{ available: string; held: string }> {
  const res = await signed(stack, m, 'GET', '/v1/balance');
  return { available: res.body.available, held: res.body.held };
}

/**
 * The books are exact: every journal sums to zero, and the entries of each merchant account sum
 * to the cached balance row.
 */
export async function expectLedgerExact(orm: MikroORM): Promise<void> {
  const em = orm.em.fork();
  const unbalanced = await em.execute(`select journal_id from ledger_entries group by journal_id having sum(amount) <> 0`);
  expect(unbalanced).toEqual([]);
  const mismatched = await em.execute(
    `select * from (
       select b.merchant_id, b.available, b.held,
              coalesce((select sum(amount) from ledger_entries e where e.account = 'merchant:' || b.merchant_id || ':available'), 0) as a_sum,
              coalesce((select sum(amount) from ledger_entries e where e.account = 'merchant:' || b.merchant_id || ':held'), 0) as h_sum
         from merchant_balances b) t
      where available <> a_sum or held <> h_sum or available < 0 or held < 0`,
  );
  expect(mismatched).toEqual([]);
}

/** Nothing of a refused withdrawal exists: no row, no hold journal, no outbox event. */
export async function countWithdrawalTraces(orm: MikroORM, merchantId: string): Promise<{ rows: number; journals: number; events: number }> {
  const em = orm.em.fork();
  const n = async (sql: string, params: unknown[]): Promise<number> => Number(((await em.execute(sql, params)) as { n: string }[])[0]!.n);
  return {
    rows: await n('select count(*) as n from withdrawals where merchant_id = ?', [merchantId]),
    journals: await n(`select count(distinct e.journal_id) as n from ledger_entries e join journals j on j.id = e.journal_id where e.merchant_id = ? and j.reference like 'withdrawal:%'`, [
      merchantId,
    ]),
    events: await n(`select count(*) as n from outbox_events where merchant_id = ? and aggregate_type = 'withdrawal'`, [merchantId]),
  };
}
