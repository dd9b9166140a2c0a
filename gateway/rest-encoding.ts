import type { Invoice, Payment } from '../src/grpc/generated/chainpay/v1/invoices';
import type { Balance } from '../src/grpc/generated/chainpay/v1/merchants';
import type { Network } from '../src/grpc/generated/chainpay/v1/networks';
import type { Withdrawal } from '../src/grpc/generated/chainpay/v1/withdrawals';

/**
 * gRPC message -> REST JSON, in the spec's field order (object literal order is JSON order).
 * Amounts stay decimal strings; an unset proto `optional` becomes null, never an omitted key.
 * Internal fields (merchant_id, webhook_url, token_contract, ...) are not copied.
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

export interface RestPayment {
  tx_hash: string;
  event_index: number;
  from: string;
  amount: string;
  confirmations: number;
  status: string;
}

export interface RestInvoice {
  uuid: string;
  status: string;
  order_id: string | null;
  title: string | null;
  amount: string;
  currency: string;
  platform_fee: string;
  network_fee: string;
  pay_amount: string;
  merchant_net: string;
  fee_payer: string;
  network: string | null;
  address: string | null;
  memo: string | null;
  checkout_url: string;
  qr_svg: string;
  received_amount: string;
  confirmations: number;
  required_confirmations: number;
  tx_hash: string | null;
  metadata: Record<string, unknown>;
  expires_at: string;
  paid_at: string | null;
  created_at: string;
  // Beyond the spec (DESIGN.md).
  paid_late: boolean;
  payments: RestPayment[];
  return_url: string | null;
  cancel_url: string | null;
  /** false on a devnet daemon: a test object, no real funds. */
  livemode: boolean;
}

export interface RestWithdrawal {
  uuid: string;
  reference: string | null;
  status: string;
  network: string;
  address: string;
  amount: string;
  network_fee: string;
  net_payout: string;
  tx_hash: string | null;
  rejection_reason: string | null;
  /** Beyond the spec: why a failed withdrawal failed; null unless status is failed. */
  failure_reason: string | null;
  created_at: string;
  completed_at: string | null;
  /** false on a devnet daemon: a test object, no real funds. */
  livemode: boolean;
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

const orNull = (value: string | undefined): string | null => value ?? null;

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

export function encodePayment(p: Payment): RestPayment {
  return {
    tx_hash: p.tx_hash,
    event_index: p.event_index,
    from: p.from,
    amount: p.amount,
    confirmations: p.confirmations,
    status: p.status,
  };
}

/** `metadata_json` -> object; empty means `{}` (the checkout view strips metadata). */
export function parseMetadata(metadataJson: string): Record<string, unknown> {
  if (metadataJson === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(metadataJson);
  } catch {
    throw new EncodingError('invoice metadata_json is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EncodingError('invoice metadata_json is not a JSON object');
  }
  return value as Record<string, unknown>;
}

export function encodeInvoice(i: Invoice): RestInvoice {
  return {
    uuid: i.uuid,
    status: i.status,
    order_id: orNull(i.order_id),
    title: orNull(i.title),
    amount: i.amount,
    currency: i.currency,
    platform_fee: i.platform_fee,
    network_fee: i.network_fee,
    pay_amount: i.pay_amount,
    merchant_net: i.merchant_net,
    fee_payer: i.fee_payer,
    network: orNull(i.network),
    address: orNull(i.address),
    memo: orNull(i.memo),
    checkout_url: i.checkout_url,
    qr_svg: i.qr_svg,
    received_amount: i.received_amount,
    confirmations: i.confirmations,
    required_confirmations: i.required_confirmations,
    tx_hash: orNull(i.tx_hash),
    metadata: parseMetadata(i.metadata_json),
    expires_at: i.expires_at,
    paid_at: orNull(i.paid_at),
    created_at: i.created_at,
    paid_late: i.paid_late,
    payments: i.payments.map(encodePayment),
    return_url: orNull(i.return_url),
    cancel_url: orNull(i.cancel_url),
    livemode: i.livemode,
  };
}

export function encodeWithdrawal(w: Withdrawal): RestWithdrawal {
  return {
    uuid: w.uuid,
    reference: orNull(w.reference),
    status: w.status,
    network: w.network,
    address: w.address,
    amount: w.amount,
    network_fee: w.network_fee,
    net_payout: w.net_payout,
    tx_hash: orNull(w.tx_hash),
    rejection_reason: orNull(w.rejection_reason),
    failure_reason: orNull(w.failure_reason),
    created_at: w.created_at,
    completed_at: orNull(w.completed_at),
    livemode: w.livemode,
  };
}

export function encodeBalance(b: Balance): RestBalance {
  return { available: b.available, held: b.held, currency: b.currency };
}
