import { webhookBodyJson } from '../lib/rest-json';
import type { Merchant } from '../store/entities';
import { newEventId } from './event-id';
import { WebhookUrlNotSetError } from './events';
import { sendWebhook, type SendOptions } from './send';
import { webhookHeaders } from './signing';

/**
 * A ping waits at most this long for the status line: under the gateway's 15 s deadline for the
 * daemon call, so the merchant gets the result (a timeout) instead of a 504.
 */
export const PING_TIMEOUT_MS = 10_000;

export interface PingResult {
  readonly delivered: boolean;
  readonly url: string;
  readonly statusCode: number | null;
  readonly latencyMs: number;
  readonly error: string | null;
  /** The body sent, JSON text. */
  readonly body: string;
}

export interface PingDeps {
  /** The dispatcher's guard and trust settings (never lifted for a ping alone). */
  readonly send: Omit<SendOptions, 'signal' | 'timeoutMs'>;
  readonly openSecret: (sealed: string) => string;
  /** created_at (the daemon clock, like real events). */
  readonly now: Date;
}

/**
 * `POST /v1/webhooks/test`: one signed `ping` event to the merchant's webhook URL, now, with the
 * headers, address guard and TLS rules of a real delivery (sendWebhook), and its outcome. Nothing
 * is written: a ping is not an outbox event, not in the event log, never retried. A refused
 * address is an outcome (delivered false, its reason in `error`), not an error of the call.
 */
export async function pingWebhook(merchant: Merchant, deps: PingDeps): Promise<PingResult> {
  const url = merchant.webhookUrl;
  if (url === null) throw new WebhookUrlNotSetError('no ping sent');
  const id = newEventId();
  const body = webhookBodyJson(id, 'ping', deps.now.toISOString(), JSON.stringify({ merchant_id: merchant.id }));
  const bytes = Buffer.from(body, 'utf8');
  // Wall-clock seconds, as for real deliveries (receivers check it against their own clock).
  const headers = webhookHeaders({
    id,
    timestamp: Math.floor(Date.now() / 1000),
    body: bytes,
    apiSecret: deps.openSecret(merchant.apiSecretEnc),
    webhookSecret: deps.openSecret(merchant.webhookSecretEnc),
  });
  const result = await sendWebhook(url, headers, bytes, { ...deps.send, timeoutMs: PING_TIMEOUT_MS });
  return { delivered: result.ok, url, statusCode: result.statusCode, latencyMs: result.latencyMs, error: result.error, body };
}
