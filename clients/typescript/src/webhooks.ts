import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InvoiceEvent, PingEvent, WebhookEvent, WithdrawalEvent } from './types';

/**
 * Verifying chainpay's webhooks (docs/webhooks.md, "Headers and signatures"). Every delivery is
 * signed two ways; check either or both, always on the raw body bytes before parsing:
 * - Standard Webhooks: `webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`
 *   keyed with the base64-decoded part of the webhook secret (`whsec_…`); the timestamp bounds replays.
 * - `X-Service-Signature`: hex HMAC-SHA256 of the body keyed with the API secret (`sk_…`). It has
 *   no timestamp: dedupe on the event id.
 * Comparisons are constant-time.
 */

/** Headers as Node's `req.headers` or fetch's `Headers` give them. */
export type WebhookHeaders = Headers | Readonly<Record<string, string | readonly string[] | undefined>>;

/** Default tolerance of `webhook-timestamp` either way, in seconds (the Standard Webhooks default). */
export const DEFAULT_TOLERANCE_S = 300;

export interface StandardWebhookOptions {
  /** Seconds `webhook-timestamp` may differ from now. Default 300. */
  readonly toleranceSeconds?: number;
  /** Now in milliseconds (tests, or a clock of your own). */
  readonly now?: () => number;
}

/** Why a delivery did not verify: `reason` is stable, the message is for logs. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: 'missing_secret' | 'missing_header' | 'stale_timestamp' | 'invalid_signature' | 'invalid_body',
    message: string,
  ) {
    super(message);
  }
}

/** Checks the Standard Webhooks headers; throws WebhookVerificationError when they do not hold. */
export function assertStandardWebhook(webhookSecret: string, headers: WebhookHeaders, body: string | Uint8Array, options: StandardWebhookOptions = {}): void {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (id === undefined || timestamp === undefined || signatures === undefined) throw new WebhookVerificationError('missing_header', 'webhook-id, webhook-timestamp and webhook-signature are required');
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError('stale_timestamp', 'webhook-timestamp is not Unix seconds');
  const nowS = Math.floor((options.now?.() ?? Date.now()) / 1000);
  if (Math.abs(nowS - Number(timestamp)) > (options.toleranceSeconds ?? DEFAULT_TOLERANCE_S)) {
    throw new WebhookVerificationError('stale_timestamp', `webhook-timestamp ${timestamp} is more than ${options.toleranceSeconds ?? DEFAULT_TOLERANCE_S} s from now`);
  }
  const expected = createHmac('sha256', webhookSecretKey(webhookSecret)).update(`${id}.${timestamp}.`).update(body).digest('base64');
  // The header may list several signatures ("v1,<a> v1,<b>"), as during a secret rotation.
  const matches = signatures
    .split(' ')
    .filter((s) => s.startsWith('v1,'))
    .map((s) => constantTimeEqual(s.slice(3), expected));
  if (!matches.includes(true)) throw new WebhookVerificationError('invalid_signature', 'no webhook-signature matches the body');
}

/** Checks `X-Service-Signature`; throws WebhookVerificationError when it does not hold. */
export function assertServiceSignature(apiSecret: string, headers: WebhookHeaders, body: string | Uint8Array): void {
  const given = header(headers, 'x-service-signature');
  if (given === undefined) throw new WebhookVerificationError('missing_header', 'X-Service-Signature is required');
  const expected = createHmac('sha256', apiSecret).update(body).digest('hex');
  if (!constantTimeEqual(given.trim().toLowerCase(), expected)) throw new WebhookVerificationError('invalid_signature', 'X-Service-Signature does not match the body');
}

export function verifyStandardWebhook(webhookSecret: string, headers: WebhookHeaders, body: string | Uint8Array, options: StandardWebhookOptions = {}): boolean {
  return holds(() => assertStandardWebhook(webhookSecret, headers, body, options));
}

export function verifyServiceSignature(apiSecret: string, headers: WebhookHeaders, body: string | Uint8Array): boolean {
  return holds(() => assertServiceSignature(apiSecret, headers, body));
}

export interface VerifyWebhookInput extends StandardWebhookOptions {
  /** The raw body bytes as received (not re-serialized JSON). */
  readonly body: string | Uint8Array;
  readonly headers: WebhookHeaders;
  /** `whsec_…`: checks the Standard Webhooks headers. */
  readonly webhookSecret?: string;
  /** `sk_…`: checks X-Service-Signature. */
  readonly apiSecret?: string;
}

/**
 * Verifies every signature a secret is given for (at least one), then parses the event. Throws
 * WebhookVerificationError; answer 4xx then, and chainpay retries.
 */
export function verifyWebhook(input: VerifyWebhookInput): WebhookEvent {
  if (input.webhookSecret === undefined && input.apiSecret === undefined) throw new WebhookVerificationError('missing_secret', 'give webhookSecret, apiSecret or both');
  if (input.webhookSecret !== undefined) assertStandardWebhook(input.webhookSecret, input.headers, input.body, input);
  if (input.apiSecret !== undefined) assertServiceSignature(input.apiSecret, input.headers, input.body);
  let event: unknown;
  try {
    event = JSON.parse(typeof input.body === 'string' ? input.body : Buffer.from(input.body).toString('utf8'));
  } catch {
    throw new WebhookVerificationError('invalid_body', 'the body is not JSON');
  }
  if (!isEvent(event)) throw new WebhookVerificationError('invalid_body', 'the body is not a chainpay event');
  const id = header(input.headers, 'webhook-id');
  if (id !== undefined && id !== event.id) throw new WebhookVerificationError('invalid_body', 'webhook-id and the event id differ');
  return event;
}

/** `invoice.*` events carry an Invoice as `data`. */
export function isInvoiceEvent(event: WebhookEvent): event is InvoiceEvent {
  return event.type.startsWith('invoice.');
}

/** The test ping of POST /v1/webhooks/test (`data.merchant_id` only): acknowledge it, nothing to do. */
export function isPingEvent(event: WebhookEvent): event is PingEvent {
  return event.type === 'ping';
}

/** `withdrawal.*` events carry a Withdrawal as `data`. */
export function isWithdrawalEvent(event: WebhookEvent): event is WithdrawalEvent {
  return event.type.startsWith('withdrawal.');
}

/** The key bytes of a Standard Webhooks secret (`whsec_` + base64). */
function webhookSecretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : record[key];
  return typeof value === 'string' ? value : value?.[0];
}

/** Equal strings, in time that depends only on their lengths. */
function constantTimeEqual(given: string, expected: string): boolean {
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  if (a.length !== b.length) {
    timingSafeEqual(b, b);
    return false;
  }
  return timingSafeEqual(a, b);
}

function holds(check: () => void): boolean {
  try {
    check();
    return true;
  } catch (e) {
    if (e instanceof WebhookVerificationError) return false;
    throw e;
  }
}

function isEvent(value: unknown): value is WebhookEvent {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return typeof e.id === 'string' && typeof e.type === 'string' && typeof e.created_at === 'string' && typeof e.data === 'object' && e.data !== null;
}
