import { createHmac } from 'node:crypto';
import { hmacHex } from '../security/hmac';

/**
 * The two webhook signatures:
 * - `X-Service-Signature`: hex HMAC-SHA256 of the body with the merchant's API secret (mirrors
 *   request signing);
 * - Standard Webhooks (standardwebhooks.com): `webhook-signature: v1,<base64 HMAC-SHA256 of
 *   "<webhook-id>.<webhook-timestamp>.<body>">`, keyed with the base64-decoded part of "whsec_...".
 */
export interface SignInput {
  readonly id: string;
  /** Unix seconds. */
  readonly timestamp: number;
  readonly body: Buffer;
  readonly apiSecret: string;
  readonly webhookSecret: string;
}

/** The key bytes of a Standard Webhooks secret ("whsec_" + base64). */
export function webhookSecretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
}

export function standardSignature(webhookSecret: string, id: string, timestamp: number, body: Buffer): string {
  const mac = createHmac('sha256', webhookSecretKey(webhookSecret));
  mac.update(`${id}.${timestamp}.`);
  mac.update(body);
  return `v1,${mac.digest('base64')}`;
}

export function webhookHeaders(input: SignInput): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-service-signature': hmacHex(input.apiSecret, input.body),
    'webhook-id': input.id,
    'webhook-timestamp': String(input.timestamp),
    'webhook-signature': standardSignature(input.webhookSecret, input.id, input.timestamp, input.body),
  };
}
