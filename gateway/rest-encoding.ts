import type { Invoice } from '../src/grpc/generated/chainpay/v1/invoices';
import type { Balance } from '../src/grpc/generated/chainpay/v1/merchants';
import type { Network } from '../src/grpc/generated/chainpay/v1/networks';
import type { Withdrawal } from '../src/grpc/generated/chainpay/v1/withdrawals';
import type { Refund } from '../src/grpc/generated/chainpay/v1/refunds';
import { MetadataTextError, restInvoiceJson, restRefundJson, restWithdrawalJson } from '../src/lib/rest-json';
import { JsonBytes } from './respond';

/**
 * gRPC message -> REST JSON, in the spec's field order (object literal order is JSON order).
 * Amounts stay decimal strings; an unset proto `optional` becomes null, never an omitted key.
 * Internal fields (merchant_id, webhook_url, token_contract, ...) are not copied. Invoice and
 * Withdrawal are defined once for the gateway and the webhooks, in src/lib/rest-json.ts.
 */

export interface RestNetwork {
  code: string;
  name: string;
  buyer_network_fee: string;
  withdrawal_fee: string;
  min_invoice: string;
  min_withdrawal: string;
  required_confirmations: number;
  deposit_mode: string;
}

export interface RestBalance {
  available: string;
  held: string;
  currency: string;
}

/** The daemon sent something the REST contract cannot carry (a daemon bug): answered as 500. */
export class EncodingError extends Error {
  override readonly name = 'EncodingError';
}

export function encodeNetwork(n: Network): RestNetwork {
  return {
    code: n.code,
    name: n.name,
    buyer_network_fee: n.buyer_network_fee,
    withdrawal_fee: n.withdrawal_fee,
    min_invoice: n.min_invoice,
    min_withdrawal: n.min_withdrawal,
    required_confirmations: n.required_confirmations,
    deposit_mode: n.deposit_mode,
  };
}

/**
 * The REST Invoice body, by the one definition the webhooks share (src/lib/rest-json.ts), as
 * bytes sent unchanged (the metadata text is spliced in as stored).
 */
export function encodeInvoice(i: Invoice, options: { readonly list?: boolean } = {}): JsonBytes {
  try {
    return new JsonBytes(Buffer.from(restInvoiceJson(i, options), 'utf8'));
  } catch (err) {
    if (err instanceof MetadataTextError) throw new EncodingError(err.message);
    throw err;
  }
}

/** The REST Refund body (beyond the spec), by the view the webhooks use too. */
export function encodeRefund(r: Refund): JsonBytes {
  return new JsonBytes(Buffer.from(restRefundJson(r), 'utf8'));
}

/** The REST Withdrawal body, by the one definition the webhooks share (src/lib/rest-json.ts). */
export function encodeWithdrawal(w: Withdrawal): JsonBytes {
  return new JsonBytes(Buffer.from(restWithdrawalJson(w), 'utf8'));
}

export function encodeBalance(b: Balance): RestBalance {
  return { available: b.available, held: b.held, currency: b.currency };
}
