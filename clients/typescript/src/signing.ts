import { createHmac } from 'node:crypto';

/**
 * Request signing (docs/api.md, "Signing requests"). Two schemes, both hex HMAC-SHA256 keyed with
 * the API secret (`sk_…`):
 * - `body`: the HMAC of the raw body bytes as sent; a GET signs the empty string. The spec's
 *   scheme: a GET's signature never changes, so a logged request could be replayed.
 * - `timestamped`: the HMAC of `timestamp.method.path.body`, sent with `X-Service-Timestamp`; the
 *   daemon refuses timestamps more than 300 s from its clock, so a replay is refused soon after.
 *   `path` is the request target exactly as sent, query string included.
 */
export type SigningScheme = 'body' | 'timestamped';

/** The bytes signed: a string is taken as UTF-8, exactly as fetch sends it. */
export type SignedBytes = string | Uint8Array;

/** Hex HMAC-SHA256 of the body (the spec's scheme). */
export function signBody(apiSecret: string, body: SignedBytes): string {
  return createHmac('sha256', apiSecret).update(body).digest('hex');
}

export interface TimestampedParts {
  /** Unix seconds. */
  readonly timestamp: number;
  /** The HTTP method as sent (`GET`, `POST`). */
  readonly method: string;
  /** The request target as sent: path and query string (`/v1/invoices?limit=5`). */
  readonly path: string;
  /** The raw body bytes (empty for a GET). */
  readonly body: SignedBytes;
}

/** Hex HMAC-SHA256 of `timestamp.method.path.body` (replay-safe scheme). */
export function signTimestamped(apiSecret: string, parts: TimestampedParts): string {
  const mac = createHmac('sha256', apiSecret);
  mac.update(`${timestampText(parts.timestamp)}.${parts.method}.${parts.path}.`);
  mac.update(parts.body);
  return mac.digest('hex');
}

export interface SignRequestInput {
  readonly apiKey: string;
  readonly apiSecret: string;
  readonly scheme: SigningScheme;
  readonly method: string;
  /** The request target: path and query string. Signed by the timestamped scheme only. */
  readonly path: string;
  readonly body: SignedBytes;
  /** Unix seconds; the timestamped scheme's clock (now by default). */
  readonly timestamp?: number;
}

/** The signing headers of one request. */
export function signRequest(input: SignRequestInput): Record<string, string> {
  const headers: Record<string, string> = { 'X-Service-Key': input.apiKey };
  if (input.scheme === 'body') {
    headers['X-Service-Signature'] = signBody(input.apiSecret, input.body);
    return headers;
  }
  const timestamp = input.timestamp ?? Math.floor(Date.now() / 1000);
  headers['X-Service-Timestamp'] = timestampText(timestamp);
  headers['X-Service-Signature'] = signTimestamped(input.apiSecret, { timestamp, method: input.method, path: input.path, body: input.body });
  return headers;
}

/** Digits only: the one spelling the daemon accepts, and the one that was signed. */
function timestampText(timestamp: number): string {
  if (!Number.isSafeInteger(timestamp) || timestamp < 0) throw new RangeError(`timestamp must be whole Unix seconds, got ${timestamp}`);
  return String(timestamp);
}
