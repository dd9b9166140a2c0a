import type { EntityManager } from '@mikro-orm/postgresql';
import { Merchant, WebhookAttempt, type OutboxEvent } from '../store/entities';
import type { MerchantsRepo } from '../store/repos/merchants';
import type { Clock } from '../domain/clock';
import { retryDelayMs } from './retry-schedule';
import { webhookHeaders } from './signing';
import { SendAbortedError, sendWebhook, type SendOptions, type SendResult } from './send';

export const NO_WEBHOOK_URL = 'no webhook URL';

/**
 * Where an event goes: an invoice event to the invoice's webhook_url when it had one, else (and
 * for every withdrawal event) to the merchant's dashboard URL as it is NOW, so an event that failed
 * for want of a URL is deliverable once the merchant sets one.
 */
export function pickTarget(event: OutboxEvent, merchantUrl: string | null | undefined): string | null {
  return (event.aggregateType === 'invoice' ? event.targetUrl : null) ?? merchantUrl ?? null;
}

async function targetOf(em: EntityManager, event: OutboxEvent): Promise<string | null> {
  if (event.aggregateType === 'invoice' && event.targetUrl) return event.targetUrl;
  return pickTarget(event, (await em.findOne(Merchant, { id: event.merchantId }))?.webhookUrl);
}

/**
 * One delivery attempt of an event the caller holds locked (FOR UPDATE) in `em`'s transaction;
 * logs the attempt and moves the event on: delivered, retry later, or failed. `attempts` counts
 * the attempts of the current round (redelivery starts a new one); the log numbers attempts
 * across rounds.
 */
export async function attemptDelivery(
  em: EntityManager,
  event: OutboxEvent,
  deps: { clock: Clock; merchants: MerchantsRepo; send: Omit<SendOptions, 'signal'>; signal: AbortSignal },
): Promise<SendResult> {
  let result: SendResult;
  try {
    result = await send(em, event, deps);
  } catch (err) {
    if (err instanceof SendAbortedError) throw err;
    // Whatever broke (e.g. a secret that cannot be decrypted) is this event's failed attempt, on
    // the schedule: one bad event must not stall the outbox.
    result = { ok: false, statusCode: null, latencyMs: 0, error: `not sent: ${(err as Error).message}`, permanent: false };
  }
  const logged = await em.count(WebhookAttempt, { eventId: event.id });
  const now = deps.clock.now();
  em.persist(new WebhookAttempt(event.id, logged + 1, now, result.statusCode, result.latencyMs, result.error));
  event.attempts += 1;
  const delay = result.ok || result.permanent ? null : retryDelayMs(event.attempts);
  if (result.ok) {
    event.status = 'delivered';
    event.deliveredAt = now;
  } else if (delay === null) {
    event.status = 'failed';
  } else {
    event.nextAttemptAt = new Date(now.getTime() + delay);
  }
  await em.flush();
  return result;
}

async function send(em: EntityManager, event: OutboxEvent, deps: { merchants: MerchantsRepo; send: Omit<SendOptions, 'signal'>; signal: AbortSignal }): Promise<SendResult> {
  const target = await targetOf(em, event);
  if (target === null) return { ok: false, statusCode: null, latencyMs: 0, error: NO_WEBHOOK_URL, permanent: true };
  const secrets = await deps.merchants.webhookSecrets(em, event.merchantId);
  const body = Buffer.from(event.body, 'utf8');
  // Wall-clock seconds: receivers compare webhook-timestamp with their own clock (replay window),
  // so it must not carry the devnet clock's offset.
  const headers = webhookHeaders({ id: event.id, timestamp: Math.floor(Date.now() / 1000), body, apiSecret: secrets.apiSecret, webhookSecret: secrets.webhookSecret });
  return sendWebhook(target, headers, body, { ...deps.send, signal: deps.signal });
}
