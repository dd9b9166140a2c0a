import { refundView } from '../views/refund-view';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Query } from '../store/raw-sql';
import { type Invoice, InvoicePayment, OutboxEvent, type Withdrawal } from '../store/entities';
import { restInvoiceJson, restRefundJson, restWithdrawalJson, webhookBodyJson } from '../lib/rest-json';
import { invoiceView, type ViewScope } from '../views/invoice-view';
import { withdrawalView } from '../views/withdrawal-view';
import { newEventId } from './event-id';

/**
 * Writes webhook events into the outbox inside the caller's transaction (the one that changed the
 * state), so an event exists exactly when its change was committed. The body is fixed here: the
 * dispatcher signs and sends these bytes unchanged on every attempt.
 */
export async function writeInvoiceEvents(em: EntityManager, row: Invoice, types: readonly string[], scope: ViewScope, now: Date): Promise<void> {
  const payments = await em.find(InvoicePayment, { invoiceUuid: row.uuid });
  // data: the REST Invoice by the one definition the gateway answers with (src/lib/rest-json.ts).
  const data = restInvoiceJson(await invoiceView(row, payments, scope));
  for (const type of types) {
    const id = newEventId();
    const body = webhookBodyJson(id, type, now.toISOString(), data);
    const event = new OutboxEvent(id, row.merchantId, 'invoice', row.uuid, type, body, now);
    event.targetUrl = row.webhookUrl;
    em.persist(event);
  }
  await em.flush();
}

/**
 * Withdrawal events (`withdrawal.<status>`), not yet written (pure but for the random event ids):
 * data is the REST Withdrawal; sent to the merchant's webhook URL. The creating transaction
 * (actors/withdrawals/creation-sql.ts) and the actors' commits insert them with raw SQL
 * (insertOutboxEventsSql) in their own transaction.
 */
export function withdrawalEvents(row: Withdrawal, types: readonly string[], now: Date, scope: { readonly livemode: boolean }): OutboxEvent[] {
  // A refund is a withdrawal to the buyer: its transitions are announced as refund.* with the Refund object.
  if (row.kind === 'refund')
    return refundEvents(
      row,
      types.map((t) => t.replace(/^withdrawal\./, 'refund.')),
      now,
      scope,
    );
  const data = restWithdrawalJson(withdrawalView(row, scope));
  return types.map((type) => {
    const id = newEventId();
    const body = webhookBodyJson(id, type, now.toISOString(), data);
    return new OutboxEvent(id, row.merchantId, 'withdrawal', row.uuid, type, body, now);
  });
}

/** refund.* events of a refund row (`data`: the REST Refund object). */
export function refundEvents(row: Withdrawal, types: readonly string[], now: Date, scope: { readonly livemode: boolean }): OutboxEvent[] {
  const data = restRefundJson(refundView(row, scope));
  return types.map((type) => {
    const id = newEventId();
    return new OutboxEvent(id, row.merchantId, 'refund', row.uuid, type, webhookBodyJson(id, type, now.toISOString(), data), now);
  });
}

/** The columns of a new outbox row, in the order outboxEventsSource produces them. */
export const OUTBOX_INSERT = 'insert into outbox_events (id, merchant_id, aggregate_type, aggregate_id, type, body, status, attempts, next_attempt_at, delivered_at, target_url, created_at)';

/**
 * A SELECT of the events' rows from arrays (parameters $first .. $first+11, see
 * outboxEventsParams), in their order: seq follows it as with a flush of persisted events.
 */
export function outboxEventsSource(first: number): string {
  const p = (i: number) => `$${first + i}`;
  return `select e.id, e.merchant_id, e.aggregate_type, e.aggregate_id, e.type, e.body, e.status, e.attempts, e.next_attempt_at, e.delivered_at, e.target_url, e.created_at
       from unnest(${p(0)}::text[], ${p(1)}::uuid[], ${p(2)}::text[], ${p(3)}::uuid[], ${p(4)}::text[], ${p(5)}::text[], ${p(6)}::text[], ${p(7)}::int[], ${p(8)}::timestamptz[], ${p(9)}::timestamptz[], ${p(10)}::text[], ${p(11)}::timestamptz[])
         with ordinality as e(id, merchant_id, aggregate_type, aggregate_id, type, body, status, attempts, next_attempt_at, delivered_at, target_url, created_at, n)
      order by e.n`;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());

export function outboxEventsParams(events: readonly OutboxEvent[]): unknown[] {
  return [
    events.map((e) => e.id),
    events.map((e) => e.merchantId),
    events.map((e) => e.aggregateType),
    events.map((e) => e.aggregateId),
    events.map((e) => e.type),
    events.map((e) => e.body),
    events.map((e) => e.status),
    events.map((e) => e.attempts),
    events.map((e) => iso(e.nextAttemptAt)),
    events.map((e) => iso(e.deliveredAt)),
    events.map((e) => e.targetUrl),
    events.map((e) => iso(e.createdAt)),
  ];
}

/** Events written on a raw connection inside the caller's transaction (RawSql.transaction): the rows a flush would insert. */
export async function insertOutboxEventsSql(q: Query, events: readonly OutboxEvent[]): Promise<void> {
  if (events.length === 0) return;
  await q(`${OUTBOX_INSERT} ${outboxEventsSource(1)}`, outboxEventsParams(events), 'chainpay_outbox_insert');
}

/**
 * Outbox events committed by raw SQL: the unit of work's commit watcher (how the dispatcher hears
 * of flushed events) does not see them, so whoever committed them announces them here, after
 * COMMIT, and the dispatcher of the same database (onOutboxEventsCommitted) looks for due events
 * at once instead of at its next poll. A missed announcement only waits for that poll.
 */
export function announceOutboxEvents(orm: MikroORM, events: readonly OutboxEvent[]): void {
  if (events.length === 0) return;
  for (const listener of listeners.get(orm) ?? []) listener();
}

/** Subscribes to announceOutboxEvents for one database; returns the unsubscribe. */
export function onOutboxEventsCommitted(orm: MikroORM, listener: () => void): () => void {
  let set = listeners.get(orm);
  if (!set) listeners.set(orm, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

const listeners = new WeakMap<MikroORM, Set<() => void>>();
