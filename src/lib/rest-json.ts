/**
 * The REST JSON of Invoice and Withdrawal (spec "Objects"), defined once: the gateway answers
 * with it (from the gRPC message) and the webhooks carry it as `data` (from the daemon's view of
 * the row). Both sources have the same field names, so each is one structural type here and the
 * two can never drift into two encodings. Pure (src/lib): no imports.
 *
 * Output is JSON text, in the spec's field order; unset optional fields are `null`, never
 * omitted; amounts stay the decimal strings they came as. `metadata_json` is spliced in as the
 * exact text the merchant sent (its numbers never pass through a JS number).
 */

/** A payment as both sources carry it (extra fields, like block_height, are not shown). */
export interface PaymentSource {
  readonly tx_hash: string;
  readonly event_index: number;
  readonly from: string;
  readonly amount: string;
  readonly confirmations: number;
  readonly status: string;
}

/** An invoice as both the gRPC message and the daemon's view carry it; internal fields are ignored. */
export interface InvoiceSource {
  readonly uuid: string;
  readonly status: string;
  readonly order_id?: string | undefined;
  readonly title?: string | undefined;
  readonly amount: string;
  readonly currency: string;
  readonly platform_fee: string;
  readonly network_fee: string;
  readonly pay_amount: string;
  readonly merchant_net: string;
  readonly fee_payer: string;
  readonly network?: string | undefined;
  readonly address?: string | undefined;
  readonly memo?: string | undefined;
  readonly checkout_url: string;
  readonly qr_svg: string;
  readonly received_amount: string;
  readonly confirmations: number;
  readonly required_confirmations: number;
  readonly tx_hash?: string | undefined;
  /** The metadata object's JSON text as stored; '' means `{}`. */
  readonly metadata_json: string;
  readonly expires_at: string;
  readonly paid_at?: string | undefined;
  readonly created_at: string;
  readonly paid_late: boolean;
  readonly payments: readonly PaymentSource[];
  readonly return_url?: string | undefined;
  readonly cancel_url?: string | undefined;
  readonly livemode: boolean;
}

export interface WithdrawalSource {
  readonly uuid: string;
  readonly reference?: string | undefined;
  readonly status: string;
  readonly network: string;
  readonly address: string;
  readonly amount: string;
  readonly network_fee: string;
  readonly net_payout: string;
  readonly tx_hash?: string | undefined;
  readonly rejection_reason?: string | undefined;
  readonly failure_reason?: string | undefined;
  readonly created_at: string;
  readonly completed_at?: string | undefined;
  readonly livemode: boolean;
  /** Beyond the spec, appended: the TON payout's comment; absent elsewhere. */
  readonly memo?: string | undefined;
}

/** The stored metadata is not a JSON object (a daemon bug: the request parser stores only objects). */
export class MetadataTextError extends Error {
  override readonly name = 'MetadataTextError';
}

const orNull = (value: string | undefined): string | null => value ?? null;

/** The metadata text to splice: checked to be one JSON object (JSON.parse only validates; its value is not used). */
export function metadataText(metadataJson: string): string {
  if (metadataJson === '') return '{}';
  let value: unknown;
  try {
    value = JSON.parse(metadataJson);
  } catch {
    throw new MetadataTextError('invoice metadata_json is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new MetadataTextError('invoice metadata_json is not a JSON object');
  return metadataJson;
}

/** `{"a":1}` + `"k"` + text -> `{"a":1,"k":text}`-style joins without re-encoding `text`. */
function spliceBetween(head: Record<string, unknown>, key: string, raw: string, tail: Record<string, unknown>): string {
  return `${JSON.stringify(head).slice(0, -1)},${JSON.stringify(key)}:${raw},${JSON.stringify(tail).slice(1)}`;
}

export function restPayment(p: PaymentSource): Record<string, unknown> {
  return { tx_hash: p.tx_hash, event_index: p.event_index, from: p.from, amount: p.amount, confirmations: p.confirmations, status: p.status };
}

/**
 * The REST Invoice object as JSON text. `list`: the object as a list shows it, without `qr_svg`
 * (~5 KB each, and drawn per invoice; docs/api.md, Lists).
 */
export function restInvoiceJson(i: InvoiceSource, options: { readonly list?: boolean } = {}): string {
  const head = {
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
    ...(options.list ? {} : { qr_svg: i.qr_svg }),
    received_amount: i.received_amount,
    confirmations: i.confirmations,
    required_confirmations: i.required_confirmations,
    tx_hash: orNull(i.tx_hash),
  };
  const tail = {
    expires_at: i.expires_at,
    paid_at: orNull(i.paid_at),
    created_at: i.created_at,
    // Beyond the spec (DESIGN.md).
    paid_late: i.paid_late,
    payments: i.payments.map(restPayment),
    return_url: orNull(i.return_url),
    cancel_url: orNull(i.cancel_url),
    /** false on a devnet daemon: a test object, no real funds. */
    livemode: i.livemode,
  };
  return spliceBetween(head, 'metadata', metadataText(i.metadata_json), tail);
}

/** The REST Withdrawal object (as a value: it has no raw text inside). */
export function restWithdrawal(w: WithdrawalSource): Record<string, unknown> {
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
    /** Beyond the spec: why a failed withdrawal failed; null unless status is failed. */
    failure_reason: orNull(w.failure_reason),
    created_at: w.created_at,
    completed_at: orNull(w.completed_at),
    /** false on a devnet daemon: a test object, no real funds. */
    livemode: w.livemode,
    /** Beyond the spec, appended after the spec's fields: the text comment of a TON payout; null elsewhere. */
    memo: orNull(w.memo),
  };
}

/** The REST Withdrawal object as JSON text. */
export function restWithdrawalJson(w: WithdrawalSource): string {
  return JSON.stringify(restWithdrawal(w));
}

/** A Refund as the daemon holds it (src/views/refund-view.ts, the gRPC Refund message): absent optionals undefined. */
export interface RefundSource {
  readonly uuid: string;
  readonly invoice_uuid: string;
  readonly reference?: string;
  readonly status: string;
  readonly network: string;
  readonly address: string;
  readonly memo?: string;
  readonly amount: string;
  readonly fee: string;
  readonly network_fee: string;
  readonly net_payout: string;
  readonly reason?: string;
  readonly tx_hash?: string;
  readonly rejection_reason?: string;
  readonly failure_reason?: string;
  readonly created_at: string;
  readonly completed_at?: string;
  readonly livemode: boolean;
}

/**
 * The REST Refund object (beyond the spec) as JSON text: keys in this order, absent optionals as
 * null (as the Withdrawal's), no merchant_id (the signer is the merchant).
 */
export function restRefundJson(v: RefundSource): string {
  return JSON.stringify({
    uuid: v.uuid,
    invoice_uuid: v.invoice_uuid,
    reference: v.reference ?? null,
    status: v.status,
    network: v.network,
    address: v.address,
    memo: v.memo ?? null,
    amount: v.amount,
    fee: v.fee,
    network_fee: v.network_fee,
    net_payout: v.net_payout,
    reason: v.reason ?? null,
    tx_hash: v.tx_hash ?? null,
    rejection_reason: v.rejection_reason ?? null,
    failure_reason: v.failure_reason ?? null,
    created_at: v.created_at,
    completed_at: v.completed_at ?? null,
    livemode: v.livemode,
  });
}

/** A webhook body `{id, type, created_at, data}` with `data` spliced in as the REST text above. */
export function webhookBodyJson(id: string, type: string, createdAt: string, dataJson: string): string {
  return `${JSON.stringify({ id, type, created_at: createdAt }).slice(0, -1)},"data":${dataJson}}`;
}
