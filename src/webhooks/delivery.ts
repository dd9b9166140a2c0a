import type { OutboxEvent, OutboxStatus } from '../store/entities';
import type { Query } from '../store/raw-sql';
import type { Clock } from '../domain/clock';
import { retryDelayMs } from './retry-schedule';
import { webhookHeaders } from './signing';
import { SendAbortedError, sendWebhook, type SendOptions, type SendResult } from './send';

/** The error recorded by an attempt for an event without a target (claimDueEvent never returns one: a guard). */
export const NO_WEBHOOK_URL = 'no webhook URL';

/**
 * Where an event goes: an invoice event to the invoice's webhook_url when it had one, else (and
 * for every withdrawal event) to the merchant's dashboard URL as it is NOW, so an event kept for
 * want of a URL (`unaddressed`) is deliverable once the merchant sets one. CLAIM_SQL computes the same in SQL.
 */
export function pickTarget(event: Pick<OutboxEvent, 'aggregateType' | 'targetUrl'>, merchantUrl: string | null | undefined): string | null {
  return (event.aggregateType === 'invoice' ? event.targetUrl : null) ?? merchantUrl ?? null;
}

/** An event claimed for one attempt, with what the attempt needs, read by the claiming statement. */
export interface ClaimedEvent {
  readonly id: string;
  readonly merchantId: string;
  readonly aggregateType: 'invoice' | 'withdrawal' | 'refund';
  readonly aggregateId: string;
  readonly type: string;
  readonly body: string;
  /** Attempts of the current round before this one (redelivery starts a new round). */
  readonly attempts: number;
  /** pickTarget of the event and its merchant's current webhook URL. */
  readonly target: string | null;
  /** The merchant's sealed secrets (null if the merchant row is gone). */
  readonly apiSecretEnc: string | null;
  readonly webhookSecretEnc: string | null;
}

/**
 * `e` is the oldest pending event of its aggregate (events go out in order per invoice/withdrawal).
 * A scalar subquery, probed per candidate through the (aggregate_id, seq) index. Written as NOT
 * EXISTS, PostgreSQL planned it as an anti-join against ALL pending events (materialized: the
 * statistics, taken when few were pending, promise a handful): with ~600 pending during a burst of
 * withdrawals, every claim compared each candidate with all of them (~1,500 index entries read per
 * claim, measured), and a merchant whose endpoint is down for a day would make it far worse.
 */
const OLDEST_PENDING = `e.seq = (select min(p.seq) from outbox_events p where p.aggregate_id = e.aggregate_id and p.status = 'pending')`;

/** The merchant's dashboard webhook URL, looked up per candidate by primary key (not a join the planner may materialize). */
const MERCHANT_URL = `(select mu.webhook_url from merchants mu where mu.id = e.merchant_id)`;

/**
 * Claims one due event that has somewhere to go: pending, due on the daemon clock, with a target
 * (events without one are kept as unaddressed in bulk by KEEP_UNADDRESSED_SQL; claiming them here too cost a
 * transaction of four statements each), and the oldest pending event of its aggregate (in order
 * per invoice/withdrawal; all events of one aggregate share their target rule). SKIP LOCKED lets several daemons (and several
 * workers) share the outbox: the row lock is held for the whole attempt, and a crashed daemon's
 * lock dies with its connection, so the event is simply pending again. The event's columns come
 * from the locking SELECT itself, so they are the row as locked (the latest version), not as of
 * the statement's start.
 */
const CLAIM_SQL = `
  with claimed as (
    select e.id, e.merchant_id, e.aggregate_type, e.aggregate_id, e.type, e.body, e.attempts, e.target_url
      from outbox_events e
     where e.status = 'pending' and e.next_attempt_at <= $1::timestamptz
       and coalesce(case when e.aggregate_type = 'invoice' then e.target_url end, ${MERCHANT_URL}) is not null
       and ${OLDEST_PENDING}
     order by e.next_attempt_at, e.seq
     limit 1
       for update of e skip locked
  )
  select c.id, c.merchant_id, c.aggregate_type, c.aggregate_id, c.type, c.body, c.attempts,
         coalesce(case when c.aggregate_type = 'invoice' then c.target_url end, m.webhook_url) as target,
         m.api_secret_enc, m.webhook_secret_enc
    from claimed c left join merchants m on m.id = c.merchant_id`;

interface ClaimRow {
  id: string;
  merchant_id: string;
  aggregate_type: 'invoice' | 'withdrawal' | 'refund';
  aggregate_id: string;
  type: string;
  body: string;
  attempts: number;
  target: string | null;
  api_secret_enc: string | null;
  webhook_secret_enc: string | null;
}

/** Inside the caller's transaction: the next due event, locked until that transaction ends; null when none is due. */
export async function claimDueEvent(q: Query, now: Date): Promise<ClaimedEvent | null> {
  const [row] = await q<ClaimRow>(CLAIM_SQL, [now.toISOString()], 'chainpay_outbox_claim');
  if (!row) return null;
  return {
    id: row.id,
    merchantId: row.merchant_id,
    aggregateType: row.aggregate_type,
    aggregateId: row.aggregate_id,
    type: row.type,
    body: row.body,
    attempts: row.attempts,
    target: row.target,
    apiSecretEnc: row.api_secret_enc,
    webhookSecretEnc: row.webhook_secret_enc,
  };
}

/** An event that had nowhere to go when it was due: kept as `unaddressed` by keepUnaddressedEvents. */
export interface UnaddressedEvent {
  readonly id: string;
  readonly merchantId: string;
  readonly aggregateType: 'invoice' | 'withdrawal' | 'refund';
  readonly aggregateId: string;
  readonly type: string;
}

/**
 * The due events that have no target (pickTarget is null: no invoice URL and the merchant has no
 * webhook URL), each the oldest pending one of its aggregate, locked as CLAIM_SQL locks them:
 * marked `unaddressed`, up to $2 events in ONE autocommit statement. A merchant without a webhook
 * URL polls instead: that is no delivery failure, so no attempt is recorded (nothing was sent,
 * and chainpay_webhook_failed_attempts_total counts attempts), nothing is marked failed, and the
 * event stays in the outbox, listed and redeliverable once a URL is set. One statement for many
 * events: a polling merchant must not cost four round trips per event. A later event of the same
 * aggregate is due only once this statement commits, so a run handles one event per aggregate.
 */
const KEEP_UNADDRESSED_SQL = `
  with due as (
    select e.id, e.merchant_id, e.aggregate_type, e.aggregate_id, e.type
      from outbox_events e
     where e.status = 'pending' and e.next_attempt_at <= $1::timestamptz
       and coalesce(case when e.aggregate_type = 'invoice' then e.target_url end, ${MERCHANT_URL}) is null
       and ${OLDEST_PENDING}
     order by e.next_attempt_at, e.seq
     limit $2
       for update of e skip locked
  )
  update outbox_events e set status = 'unaddressed'
    from due d where e.id = d.id
  returning d.id, d.merchant_id, d.aggregate_type, d.aggregate_id, d.type`;

interface UnaddressedRow {
  id: string;
  merchant_id: string;
  aggregate_type: 'invoice' | 'withdrawal' | 'refund';
  aggregate_id: string;
  type: string;
}

/** Autocommit: keeps up to `limit` due events that have no webhook URL as `unaddressed` (KEEP_UNADDRESSED_SQL); the events it kept. */
export async function keepUnaddressedEvents(q: Query, now: Date, limit: number): Promise<UnaddressedEvent[]> {
  const rows = await q<UnaddressedRow>(KEEP_UNADDRESSED_SQL, [now.toISOString(), limit], 'chainpay_outbox_keep_unaddressed');
  return rows.map((r) => ({ id: r.id, merchantId: r.merchant_id, aggregateType: r.aggregate_type, aggregateId: r.aggregate_id, type: r.type }));
}

/**
 * The attempt's log row (numbered across rounds, counted under the event's lock) and the event's
 * next state, in one statement.
 */
const RECORD_SQL = `
  with attempt as (
    insert into webhook_attempts (event_id, attempt, at, status_code, latency_ms, error)
    select $1::text, count(*) + 1, $2::timestamptz, $3::int, $4::int, $5::text from webhook_attempts where event_id = $1::text
  )
  update outbox_events set attempts = $6::int, status = $7::text, next_attempt_at = coalesce($8::timestamptz, next_attempt_at), delivered_at = coalesce($9::timestamptz, delivered_at)
   where id = $1::text`;

/** What an attempt did to its event. */
export interface AttemptOutcome {
  readonly result: SendResult;
  /** Attempts of the current round, this one included. */
  readonly attempts: number;
  readonly status: OutboxStatus;
}

/**
 * One delivery attempt of an event the caller holds locked in `q`'s transaction: sends it, logs
 * the attempt and moves the event on (delivered, retry later, or failed).
 */
export async function attemptDelivery(
  q: Query,
  event: ClaimedEvent,
  deps: { clock: Clock; openSecret: (sealed: string) => string; send: Omit<SendOptions, 'signal'>; signal: AbortSignal },
): Promise<AttemptOutcome> {
  let result: SendResult;
  try {
    result = await send(event, deps);
  } catch (err) {
    if (err instanceof SendAbortedError) throw err;
    // Whatever broke (e.g. a secret that cannot be decrypted) is this event's failed attempt, on
    // the schedule: one bad event must not stall the outbox.
    result = { ok: false, statusCode: null, latencyMs: 0, error: `not sent: ${(err as Error).message}`, permanent: false };
  }
  const now = deps.clock.now();
  const attempts = event.attempts + 1;
  const delay = result.ok || result.permanent ? null : retryDelayMs(attempts);
  const status: OutboxStatus = result.ok ? 'delivered' : delay === null ? 'failed' : 'pending';
  const nextAttemptAt = status === 'pending' && delay !== null ? new Date(now.getTime() + delay).toISOString() : null;
  await q(
    RECORD_SQL,
    [event.id, now.toISOString(), result.statusCode, result.latencyMs, result.error, attempts, status, nextAttemptAt, result.ok ? now.toISOString() : null],
    'chainpay_outbox_record_attempt',
  );
  return { result, attempts, status };
}

async function send(event: ClaimedEvent, deps: { openSecret: (sealed: string) => string; send: Omit<SendOptions, 'signal'>; signal: AbortSignal }): Promise<SendResult> {
  if (event.target === null) return { ok: false, statusCode: null, latencyMs: 0, error: NO_WEBHOOK_URL, permanent: true };
  if (event.apiSecretEnc === null || event.webhookSecretEnc === null) throw new Error(`merchant ${event.merchantId} not found`);
  const body = Buffer.from(event.body, 'utf8');
  // Wall-clock seconds: receivers compare webhook-timestamp with their own clock (replay window),
  // so it must not carry the devnet clock's offset.
  const headers = webhookHeaders({
    id: event.id,
    timestamp: Math.floor(Date.now() / 1000),
    body,
    apiSecret: deps.openSecret(event.apiSecretEnc),
    webhookSecret: deps.openSecret(event.webhookSecretEnc),
  });
  return sendWebhook(event.target, headers, body, { ...deps.send, signal: deps.signal });
}
