import { BigIntType, EntitySchema } from '@mikro-orm/core';

/**
 * pending: to be sent (or retried); delivered: a 2xx came back; failed: every attempt failed
 * (redeliverable); unaddressed: kept, not sent, because there was no webhook URL when it was due
 * (a merchant that polls): no delivery failure, redeliverable once a URL is set.
 */
export type OutboxStatus = 'pending' | 'delivered' | 'failed' | 'unaddressed';

/**
 * A webhook event, written in the same transaction as the state change that caused it.
 * `seq` orders events; delivery is in order per `aggregateId` (an invoice or a withdrawal).
 */
export class OutboxEvent {
  seq?: number;
  /**
   * The id of the transaction that inserted the row (xid8 as decimal text), set by the column's
   * default `pg_current_xact_id()`, never by us: left undefined, a flush sends DEFAULT and the
   * raw-SQL insert (OUTBOX_INSERT) does not name the column. The merchant's event log orders by
   * (txId, seq) (src/webhooks/event-log.ts).
   */
  txId?: string;
  status: OutboxStatus = 'pending';
  attempts = 0;
  nextAttemptAt: Date;
  deliveredAt: Date | null = null;
  targetUrl: string | null = null;
  constructor(
    public id: string,
    public merchantId: string,
    public aggregateType: 'invoice' | 'withdrawal' | 'refund',
    public aggregateId: string,
    public type: string,
    /** The exact JSON body that is signed and sent. */
    public body: string,
    public createdAt: Date,
  ) {
    this.nextAttemptAt = createdAt;
  }
}

export class WebhookAttempt {
  id?: number;
  constructor(
    public eventId: string,
    public attempt: number,
    public at: Date,
    public statusCode: number | null,
    public latencyMs: number,
    public error: string | null,
  ) {}
}

export const OutboxEventSchema = new EntitySchema<OutboxEvent>({
  class: OutboxEvent,
  tableName: 'outbox_events',
  indexes: [
    { properties: ['status', 'nextAttemptAt'] },
    { properties: ['aggregateId', 'seq'] },
    { properties: ['merchantId', 'seq'] },
    // The merchant's event log, in (tx_id, seq) order (migration 20261129000000-outbox-tx-order).
    { properties: ['merchantId', 'txId', 'seq'] },
    // The oldest pending event per aggregate (migration 20261125000000-outbox-pending-order).
    { name: 'outbox_events_pending_aggregate_seq_index', expression: `create index "outbox_events_pending_aggregate_seq_index" on "outbox_events" ("aggregate_id", "seq") where "status" = 'pending'` },
  ],
  properties: {
    id: { type: 'string', length: 40, primary: true },
    seq: { type: new BigIntType('number'), autoincrement: true, unique: true, columnType: 'bigserial' } as never,
    txId: { type: 'string', columnType: 'xid8', defaultRaw: 'pg_current_xact_id()' },
    merchantId: { type: 'uuid' },
    aggregateType: { type: 'string', length: 16 },
    aggregateId: { type: 'uuid' },
    type: { type: 'string', length: 40 },
    body: { type: 'text' },
    status: { type: 'string', length: 16 },
    attempts: { type: 'integer' },
    nextAttemptAt: { type: 'Date', columnType: 'timestamptz(3)' },
    deliveredAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    targetUrl: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});

export const WebhookAttemptSchema = new EntitySchema<WebhookAttempt>({
  class: WebhookAttempt,
  tableName: 'webhook_attempts',
  indexes: [{ properties: ['eventId'] }],
  properties: {
    id: { type: 'integer', primary: true, autoincrement: true },
    eventId: { type: 'string', length: 40 },
    attempt: { type: 'integer' },
    at: { type: 'Date', columnType: 'timestamptz(3)' },
    statusCode: { type: 'integer', nullable: true },
    latencyMs: { type: 'integer' },
    error: { type: 'text', nullable: true },
  },
});
