import { IsolationLevel, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConflictError, NotFoundError, ValidationError } from '../domain/errors';
import { Merchant, OutboxEvent, WebhookAttempt, type OutboxStatus } from '../store/entities';
import { recordAudit } from '../store/repos/audit';
import { pickTarget } from './delivery';

/** An outbox event with its delivery log and where it goes now. */
export interface WebhookEventView {
  readonly event: OutboxEvent;
  readonly deliveries: readonly WebhookAttempt[];
  /** The invoice's webhook_url, else the merchant's current URL; null when there is none. */
  readonly target: string | null;
}

const STATUSES: readonly OutboxStatus[] = ['pending', 'delivered', 'failed', 'unaddressed'];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface WebhookEventFilter {
  readonly merchantId?: string;
  readonly status?: string;
  /** 0 = default 50; at most 500. */
  readonly limit?: number;
}

/** Newest first. */
export async function listWebhookEvents(em: EntityManager, filter: WebhookEventFilter): Promise<WebhookEventView[]> {
  const where: Record<string, unknown> = {};
  if (filter.merchantId) {
    if (!UUID.test(filter.merchantId)) throw new ValidationError('invalid_merchant_id', 'merchant_id must be a UUID', 'merchant_id');
    where.merchantId = filter.merchantId;
  }
  if (filter.status) {
    if (!STATUSES.includes(filter.status as OutboxStatus)) throw new ValidationError('invalid_status', `status must be one of ${STATUSES.join(', ')}`, 'status');
    where.status = filter.status;
  }
  const limit = filter.limit ?? 0;
  if (!Number.isInteger(limit) || limit < 0 || limit > 500) throw new ValidationError('invalid_limit', 'limit must be from 1 to 500', 'limit');
  return snapshot(em, async (tx) => views(tx, await tx.find(OutboxEvent, where, { orderBy: { seq: 'desc' }, limit: limit || 50 })));
}

export async function getWebhookEvent(em: EntityManager, id: string): Promise<WebhookEventView> {
  return snapshot(em, async (tx) => {
    const event = await tx.findOne(OutboxEvent, { id });
    if (!event) throw new NotFoundError('webhook_event', id);
    return (await views(tx, [event]))[0]!;
  });
}

/** Events and their attempts read from one snapshot (an attempt commits with its event's update). */
function snapshot<T>(em: EntityManager, fn: (tx: EntityManager) => Promise<T>): Promise<T> {
  return em.transactional(fn, { isolationLevel: IsolationLevel.REPEATABLE_READ, readOnly: true });
}

/**
 * Queues an event for delivery again, now, with a fresh retry schedule (whatever its status: an
 * operator may also resend a delivered one). Waits for an attempt in flight (row lock).
 * `merchantId`: only that merchant's event (the merchant API); another's is not found.
 */
export async function redeliverWebhookEvent(em: EntityManager, id: string, now: Date, merchantId?: string): Promise<{ before: { status: OutboxStatus; attempts: number }; event: OutboxEvent }> {
  const event = await em.findOne(OutboxEvent, merchantId === undefined ? { id } : { id, merchantId }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!event) throw new NotFoundError(merchantId === undefined ? 'webhook_event' : 'event', id);
  const before = { status: event.status, attempts: event.attempts };
  event.status = 'pending';
  event.attempts = 0;
  event.nextAttemptAt = now;
  event.deliveredAt = null;
  await em.flush();
  return { before, event };
}

async function views(em: EntityManager, events: readonly OutboxEvent[]): Promise<WebhookEventView[]> {
  if (events.length === 0) return [];
  const attempts = await em.find(WebhookAttempt, { eventId: { $in: events.map((e) => e.id) } }, { orderBy: { eventId: 'asc', attempt: 'asc' } });
  const merchants = await em.find(Merchant, { id: { $in: [...new Set(events.map((e) => e.merchantId))] } });
  const urls = new Map(merchants.map((m) => [m.id, m.webhookUrl]));
  return events.map((event) => ({
    event,
    deliveries: attempts.filter((a) => a.eventId === event.id),
    target: pickTarget(event, urls.get(event.merchantId)),
  }));
}

/** 409: an event (or a ping) has nowhere to go: neither the invoice nor the merchant has a webhook URL. */
export class WebhookUrlNotSetError extends ConflictError {
  constructor(what: string) {
    super('webhook_url_not_set', `${what}: neither the invoice nor the merchant has a webhook URL (the operator sets the merchant's with chainpay merchant update --webhook-url)`);
  }
}

/** What an event id looks like (event-id.ts); anything else cannot name an event. */
const EVENT_ID = /^evt_[0-9a-f]{24}$/;

/**
 * The merchant API's redelivery (`POST /v1/events/{id}/redeliver`): redeliverWebhookEvent scoped to
 * the merchant (another merchant's event or an unknown id: 404 event_not_found), refused with 409
 * when the event has no target (it would only be set aside as unaddressed again), audited like the
 * operator's. One transaction: a refusal changes nothing.
 */
export async function redeliverMerchantEvent(em: EntityManager, input: { merchantId: string; id: string; actor: string; now: Date }): Promise<OutboxEvent> {
  if (!EVENT_ID.test(input.id)) throw new NotFoundError('event', input.id.slice(0, 40));
  return em.transactional(async (tx) => {
    const { before, event } = await redeliverWebhookEvent(tx, input.id, input.now, input.merchantId);
    const merchant = await tx.findOne(Merchant, { id: input.merchantId });
    if (pickTarget(event, merchant?.webhookUrl) === null) throw new WebhookUrlNotSetError(`event ${input.id} cannot be redelivered`);
    recordAudit(tx, { actor: input.actor, action: 'webhook.redeliver', target: `webhook_event:${input.id}`, before, after: { status: event.status, attempts: event.attempts }, at: input.now });
    await tx.flush();
    return event;
  });
}
