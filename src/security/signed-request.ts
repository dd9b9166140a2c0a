import { verifyHmac } from './hmac';

/** A merchant's signing secret as the verifier needs it. */
export interface SigningSecret {
  readonly merchantId: string;
  readonly secret: string;
  /** Signed calls without X-Service-Timestamp are refused (the merchant opted in). */
  readonly requireTimestamp?: boolean;
}

/** X-Service-Timestamp may differ from the daemon's wall clock by this much either way. */
export const TIMESTAMP_TOLERANCE_S = 300;

/** Unix seconds, digits only (no sign, no fraction): one spelling, so the signed text is unambiguous. */
const TIMESTAMP = /^\d{1,12}$/;

export function isTimestampText(value: string): boolean {
  return TIMESTAMP.test(value);
}

/**
 * The bytes a timestamped signature covers: `timestamp + "." + method + "." + path + "." + body`,
 * the path being the request target as sent (with its query string), the body its exact bytes.
 */
export function timestampedPayload(timestamp: string, method: Buffer | string, path: Buffer | string, body: Buffer): Buffer {
  const dot = Buffer.from('.');
  return Buffer.concat([Buffer.from(timestamp), dot, Buffer.from(method), dot, Buffer.from(path), dot, body]);
}

export function verifyTimestamped(secret: string, parts: { timestamp: string; method: Buffer | string; path: Buffer | string; body: Buffer }, presented: string): boolean {
  return verifyHmac(secret, timestampedPayload(parts.timestamp, parts.method, parts.path, parts.body), presented);
}

/** Within ±TIMESTAMP_TOLERANCE_S of `nowMs` (the daemon's wall clock). */
export function isFreshTimestamp(timestamp: string, nowMs: number): boolean {
  return Math.abs(Number(timestamp) - Math.floor(nowMs / 1000)) <= TIMESTAMP_TOLERANCE_S;
}
