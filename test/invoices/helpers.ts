import { rpc, signed, waitForStatus, type Stack, type MerchantCredentials } from '../support/stack';
import * as grpc from '@grpc/grpc-js';
import type { DevnetPayResponse } from '../../src/grpc/generated/chainpay/v1/devnet';
import type { InvoiceUpdate } from '../../src/grpc/generated/chainpay/v1/invoices';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Json = any;

export async function createInvoice(stack: Stack, m: MerchantCredentials, body: Record<string, unknown>): Promise<Json> {
  const res = await signed(stack, m, 'POST', '/v1/invoices', body);
  if (res.status !== 201) throw new Error(`create invoice: ${res.status} ${res.text}`);
  return res.body;
}

export async function pay(stack: Stack, network: string, to: string, amount: string, extra: { memo?: string; token?: string } = {}): Promise<DevnetPayResponse> {
  return rpc<DevnetPayResponse>((cb) => stack.clients.devnet.pay({ network, to, amount, ...extra }, stack.operator, cb));
}

export async function mine(stack: Stack, network: string, blocks: number): Promise<void> {
  await rpc((cb) => stack.clients.devnet.mine({ network, blocks }, stack.operator, cb));
}

export async function reorg(stack: Stack, network: string, depth: number): Promise<void> {
  await rpc((cb) => stack.clients.devnet.reorg({ network, depth }, stack.operator, cb));
}

export async function advance(stack: Stack, seconds: number): Promise<void> {
  await rpc((cb) => stack.clients.devnet.advanceTime({ seconds: String(seconds) }, stack.operator, cb));
}

export async function getInvoice(stack: Stack, m: MerchantCredentials, uuid: string): Promise<Json> {
  return (await signed(stack, m, 'GET', `/v1/invoices/${uuid}`)).body;
}

/** Pay, wait until seen, mine to the required confirmations, wait for `status`. */
export async function payAndConfirm(stack: Stack, m: MerchantCredentials, inv: Json, amount: string, status: string): Promise<Json> {
  const tx = await pay(stack, inv.network, inv.address, amount, inv.memo ? { memo: inv.memo } : {});
  await waitForStatus(stack, m, inv.uuid, 'confirming').catch(() => undefined);
  await mine(stack, inv.network, inv.required_confirmations);
  const body = await waitForStatus(stack, m, inv.uuid, status);
  return { ...body, _tx: tx.tx_hash };
}

export async function balance(stack: Stack, m: MerchantCredentials): Promise<{ available: string; held: string }> {
  return (await signed(stack, m, 'GET', '/v1/balance')).body;
}

export async function count(stack: Stack, sql: string, params: unknown[] = []): Promise<number> {
  const rows = await stack.daemon.orm.em.fork().getConnection().execute<{ n: number }[]>(sql, params);
  return Number(rows[0]!.n);
}

export { waitForStatus as waitForStatusOf } from '../support/stack';

/** A WatchInvoice stream opened as the merchant (operator token + x-merchant-id): every update it sends, in order. */
export function watchInvoice(stack: Stack, merchantId: string, uuid: string): { updates: InvoiceUpdate[]; cancel(): void } {
  const md = new grpc.Metadata();
  md.set('authorization', `Bearer ${stack.daemon.operatorToken}`);
  md.set('x-merchant-id', merchantId);
  const updates: InvoiceUpdate[] = [];
  const stream = stack.clients.invoices.watchInvoice({ uuid }, md);
  stream.on('data', (u: InvoiceUpdate) => updates.push(u));
  stream.on('error', () => undefined);
  return { updates, cancel: () => stream.cancel() };
}
