import type { Query } from '../store/raw-sql';
import type { EventLogCursor, EventLogQuery } from '../domain/event-log-query';

/** One event of the log: the outbox row's id, type and body (the webhook's exact bytes), and its position. */
export interface LoggedEvent {
  readonly id: string;
  readonly type: string;
  /** The webhook body exactly as stored (and as sent): never parsed or re-serialized. */
  readonly body: string;
  readonly position: EventLogCursor;
}

export interface EventLogPage {
  readonly events: readonly LoggedEvent[];
  /** The last event's position; the caller's own cursor when the page is empty. */
  readonly next: EventLogCursor;
  /** More events are readable right now (the caller should ask again at once). */
  readonly hasMore: boolean;
}

/**
 * A merchant's events after a position, in (tx_id, seq) order: the transaction that wrote them,
 * then the order they were written in it.
 *
 * Only transactions below the horizon are read: `pg_snapshot_xmin(pg_current_snapshot())` is the
 * lowest xid still running when this statement's snapshot was taken (cluster-wide; read-only
 * transactions have no xid and do not count), so
 * every row with a lower tx_id belongs to a finished transaction, is visible in this snapshot if it
 * committed, and no row can ever again appear below it: a transaction that has no xid yet gets one
 * at or above the horizon. Hence a cursor never has an event land behind it, which ordering by
 * `seq` alone could not promise (seq is taken at insert, and a transaction that commits late shows
 * its lower seq after higher ones were read). The price: while any transaction in the cluster runs
 * (a webhook attempt holds one for up to its 15 s timeout, a long report for longer), events of
 * transactions that started after it wait below the horizon: delayed, never lost or reordered.
 *
 * One row more than asked tells `hasMore`. Autocommit on a pooled connection: nothing locked.
 */
const PAGE_SQL = `
  select e.id, e.type, e.body, e.tx_id::text as tx_id, e.seq::text as seq
    from outbox_events e
   where e.merchant_id = $1::uuid
     and (e.tx_id, e.seq) > ($2::xid8, $3::bigint)
     and e.tx_id < pg_snapshot_xmin(pg_current_snapshot())
   order by e.tx_id, e.seq
   limit $4::int`;

interface PageRow {
  id: string;
  type: string;
  body: string;
  tx_id: string;
  seq: string;
}

export async function readEventLog(q: Query, merchantId: string, query: EventLogQuery): Promise<EventLogPage> {
  const rows = await q<PageRow>(PAGE_SQL, [merchantId, query.after.txId, query.after.seq, query.limit + 1], 'chainpay_event_log_page');
  const events = rows.slice(0, query.limit).map((r) => ({ id: r.id, type: r.type, body: r.body, position: { txId: r.tx_id, seq: r.seq } }));
  const last = events[events.length - 1];
  return { events, next: last ? last.position : query.after, hasMore: rows.length > query.limit };
}
