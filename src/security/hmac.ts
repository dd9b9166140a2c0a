import { createHmac, timingSafeEqual } from 'node:crypto';

/** Hex HMAC-SHA256 of the raw bytes exactly as received (the empty string for a GET). */
export function hmacHex(secret: string, body: Buffer | string): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

/** Constant-time comparison of a presented hex signature against the expected one. */
export function verifyHmac(secret: string, body: Buffer, presented: string): boolean {
  const expected = Buffer.from(hmacHex(secret, body), 'utf8');
  const given = Buffer.from(presented.trim().toLowerCase(), 'utf8');
  // timingSafeEqual needs equal lengths; compare against itself to keep the time constant.
  if (given.length !== expected.length) {
    timingSafeEqual(expected, expected);
    return false;
  }
  return timingSafeEqual(expected, given);
}
