import { IsolationLevel, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError, ValidationError } from '../domain/errors';
import { Merchant, OutboxEvent, WebhookAttempt, type OutboxStatus } from '../store/entities';
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
 */
export async function redeliverWebhookEvent(em: EntityManager, id: string, now: Date): Promise<{ before: { status: OutboxStatus; attempts: number }; event: OutboxEvent }> {
  const event = await em.findOne(OutboxEvent, { id }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!event) throw new NotFoundError('webhook_event', id);
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
