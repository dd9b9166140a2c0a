import { Dec } from './decimal';
import { parseAmount } from './amount';
import { formatAmount } from './decimal';
import { MalformedRequestError, ValidationError } from './errors';
import { isNetworkCode, type NetworkCode, type NetworkSettings } from './networks';
import type { FeePayer } from './fees';
import { BodyFields } from './request-fields';
import { BODY_TEXT, METADATA_MAX_BYTES, metadataJson } from './metadata';
import { assertBoundedText, assertStorable, codePointLength } from './text';

/** The body of POST /v1/invoices, validated. Amounts stay decimal strings. */
export interface CreateInvoiceInput {
  readonly amount: string;
  readonly orderId: string | null;
  readonly title: string | null;
  readonly network: NetworkCode | null;
  readonly feePayer: FeePayer;
  readonly lifetimeMinutes: number;
  readonly webhookUrl: string | null;
  readonly returnUrl: string | null;
  readonly cancelUrl: string | null;
  /** The merchant's JSON object, serialized once here and echoed verbatim afterwards. */
  readonly metadataJson: string;
}

export const INVOICE_LIMITS = {
  amountDecimals: 8,
  lifetimeMin: 5,
  lifetimeMax: 10080,
  lifetimeDefault: 60,
  orderIdMax: 200,
  titleMax: 200,
  urlMax: 2048,
  metadataMaxBytes: METADATA_MAX_BYTES,
} as const;

/** The fields of POST /v1/invoices: the spec's, and `currency`, accepted when it is exactly "USDT". */
export const CREATE_INVOICE_FIELDS = new BodyFields(['amount', 'currency', 'order_id', 'title', 'network', 'fee_payer', 'lifetime_minutes', 'webhook_url', 'return_url', 'cancel_url', 'metadata']);
/** The fields of POST /v1/invoices/{uuid}/network. */
export const SET_INVOICE_NETWORK_FIELDS = new BodyFields(['network']);
/** The only currency an invoice is denominated in. */
export const INVOICE_CURRENCY = 'USDT';

function optionalString(body: Record<string, unknown>, field: string): string | null {
  const v = body[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new MalformedRequestError(`${field} must be a string`, field);
  return v;
}

function boundedText(body: Record<string, unknown>, field: string, max: number): string | null {
  const v = optionalString(body, field);
  if (v === null) return null;
  assertBoundedText(v, field, max);
  return v;
}

function url(body: Record<string, unknown>, field: string, httpsOnly: boolean): string | null {
  const v = optionalString(body, field);
  if (v === null) return null;
  assertStorable(v, field);
  let parsed: URL | null = null;
  try {
    parsed = codePointLength(v) <= INVOICE_LIMITS.urlMax ? new URL(v) : null;
  } catch {
    parsed = null;
  }
  const allowed = httpsOnly ? ['https:'] : ['https:', 'http:'];
  if (!parsed || !allowed.includes(parsed.protocol)) {
    throw new ValidationError(`invalid_${field}`, `${field} must be a valid ${httpsOnly ? 'HTTPS' : 'HTTP(S)'} URL`, field);
  }
  return v;
}

/** A network code of the request: unknown or inactive codes are refused with 422 `unknown_network`. */
export function parseNetwork(value: unknown, active: readonly NetworkSettings[], field = 'network'): NetworkSettings {
  if (typeof value !== 'string') throw new MalformedRequestError(`${field} must be a string`, field);
  const found = isNetworkCode(value) ? active.find((n) => n.code === value) : undefined;
  const allowed = `${field} must be one of ${active.map((n) => n.code).join(', ')}`;
  // A known code that is not active: disabled here (e.g. in live mode without its RPC settings).
  if (!found) throw new ValidationError('unknown_network', isNetworkCode(value) ? `${value} is not enabled on this service; ${allowed}` : allowed, field);
  return found;
}

/** The minimum an invoice amount must meet: the network's, or the lowest active one while unset. */
export function minimumFor(network: NetworkSettings | null, active: readonly NetworkSettings[]): string {
  if (network) return network.minInvoice;
  return active.reduce((min, n) => (new Dec(n.minInvoice).lessThan(min) ? n.minInvoice : min), active[0]?.minInvoice ?? '0');
}

export function assertMeetsMinimum(amount: string, minimum: string, network: string | null): void {
  if (new Dec(amount).lessThan(minimum)) {
    throw new ValidationError('amount_below_minimum', `amount is below the minimum of ${minimum}${network ? ` on ${network}` : ''}`, 'amount', { min_invoice: minimum });
  }
}

/** The body of POST /v1/invoices/{uuid}/network: its network value, still to be checked against the active networks (parseNetwork). */
export function parseSetInvoiceNetwork(body: Record<string, unknown>): unknown {
  SET_INVOICE_NETWORK_FIELDS.assertKnown(body);
  if (body.network === undefined) throw new MalformedRequestError('network is required', 'network', 'missing_field');
  return body.network;
}

export function parseCreateInvoice(body: Record<string, unknown>, active: readonly NetworkSettings[]): CreateInvoiceInput {
  CREATE_INVOICE_FIELDS.assertKnown(body);
  // Stated or not, the invoice is in USDT: another currency must not become a USDT invoice of the same amount.
  if (body.currency !== undefined && body.currency !== INVOICE_CURRENCY) {
    throw new ValidationError(
      'unsupported_currency',
      `currency must be ${INVOICE_CURRENCY}: invoices are denominated in ${INVOICE_CURRENCY} (omit the field or send "${INVOICE_CURRENCY}")`,
      'currency',
    );
  }
  if (body.amount === undefined) throw new MalformedRequestError('amount is required', 'amount', 'missing_field');
  const amount = formatAmount(parseAmount(body.amount, { field: 'amount', maxDecimals: INVOICE_LIMITS.amountDecimals }));
  const network = body.network === undefined || body.network === null ? null : parseNetwork(body.network, active);
  assertMeetsMinimum(amount, minimumFor(network, active), network?.code ?? null);

  const feePayerRaw = optionalString(body, 'fee_payer') ?? 'buyer';
  if (feePayerRaw !== 'buyer' && feePayerRaw !== 'merchant') throw new ValidationError('invalid_fee_payer', 'fee_payer must be buyer or merchant', 'fee_payer');

  let lifetimeMinutes: number = INVOICE_LIMITS.lifetimeDefault;
  if (body.lifetime_minutes !== undefined && body.lifetime_minutes !== null) {
    const v = body.lifetime_minutes;
    if (typeof v !== 'number') throw new MalformedRequestError('lifetime_minutes must be an integer', 'lifetime_minutes');
    if (!Number.isInteger(v) || v < INVOICE_LIMITS.lifetimeMin || v > INVOICE_LIMITS.lifetimeMax) {
      throw new ValidationError('lifetime_out_of_range', `lifetime_minutes must be an integer from ${INVOICE_LIMITS.lifetimeMin} to ${INVOICE_LIMITS.lifetimeMax}`, 'lifetime_minutes');
    }
    lifetimeMinutes = v;
  }

  const metadata = body.metadata === undefined || body.metadata === null ? '{}' : metadataJson(body.metadata, (body as Record<symbol, unknown>)[BODY_TEXT] as string | undefined);

  return {
    amount,
    orderId: boundedText(body, 'order_id', INVOICE_LIMITS.orderIdMax),
    title: boundedText(body, 'title', INVOICE_LIMITS.titleMax),
    network: network?.code ?? null,
    feePayer: feePayerRaw,
    lifetimeMinutes,
    webhookUrl: url(body, 'webhook_url', true),
    returnUrl: url(body, 'return_url', false),
    cancelUrl: url(body, 'cancel_url', false),
    metadataJson: metadata,
  };
}
