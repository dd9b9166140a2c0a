import type { Query } from '../../store/raw-sql';
import type { OutboxEvent, Withdrawal } from '../../store/entities';
import { canonicalDecimal } from '../../store/repos/network-settings';
import { OUTBOX_INSERT, outboxEventsParams, outboxEventsSource } from '../../webhooks/outbox';
import type { UsableRow } from './whitelist';

/**
 * The statements of the creating transaction (Withdrawals.createLocked), on a raw connection:
 * prepared once per connection, with constant texts whatever the batch size (arrays unnested
 * server-side). In order: the merchants' locks, one read of everything judged under them, one
 * insert of the rows and their outbox events, then the holds (postJournalsSql).
 */

const parseJson = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

export type WhitelistRows = readonly (UsableRow & { readonly network: string })[];

export interface MerchantCaps {
  readonly perWithdrawal: string;
  readonly daily: string;
}

/**
 * Serializes creations per merchant (the row locks, until commit) and reads their caps, keyed by
 * the merchant id as PostgreSQL writes a uuid (lower case); an unknown merchant has no entry. The rows are locked in id order,
 * so two transactions that lock several of the same merchants (another daemon's) cannot deadlock.
 */
export async function lockMerchantsCaps(q: Query, merchantIds: readonly string[]): Promise<Map<string, MerchantCaps>> {
  const rows = await q<{ id: string; per: string; daily: string }>(
    'select id::text as id, cap_per_withdrawal::text as per, cap_daily::text as daily from merchants where id = any($1::uuid[]) order by id for update',
    [merchantIds],
    'chainpay_wd_lock_merchants',
  );
  return new Map(rows.map((r) => [r.id, { perWithdrawal: canonicalDecimal(r.per), daily: canonicalDecimal(r.daily) }]));
}

export interface UnderLock {
  /** Sum of the rolling cap window: withdrawals since `since` that are not rejected or failed. */
  readonly used: string;
  readonly available: string;
  /** The merchant's active whitelist rows, every network. */
  readonly whitelist: WhitelistRows;
  /** reference -> uuid of the merchant's withdrawals with one of the references asked about. */
  readonly known: ReadonlyMap<string, string>;
}

/**
 * The cap window's sum, exact, in bounded reads (withdrawal_cap_hours; migration
 * 20261126000000-withdrawal-cap-hours). With E the UTC hour that holds the window's start `since`:
 * the hourly gross sums of the hours after E, minus the rejected and failed withdrawals of those
 * hours (a partial index of only them), plus the withdrawals of hour E itself created after
 * `since` and neither rejected nor failed. The same rows as summing every withdrawal created after
 * `since` that is not rejected or failed; at most 25 hour rows and one hour of withdrawals read.
 */
const CAP_WINDOW_USED = `(select coalesce(sum(used), 0) from withdrawal_cap_hours where merchant_id = m.id and hour > date_trunc('hour', $2::timestamptz, 'UTC'))
            - (select coalesce(sum(amount), 0) from withdrawals
                where merchant_id = m.id and status in ('rejected', 'failed') and created_at >= date_trunc('hour', $2::timestamptz, 'UTC') + interval '1 hour')
            + (select coalesce(sum(amount), 0) from withdrawals
                where merchant_id = m.id and created_at > $2::timestamptz and created_at < date_trunc('hour', $2::timestamptz, 'UTC') + interval '1 hour'
                  and status not in ('rejected', 'failed'))`;

const UNDER_LOCK = `select m.id::text as merchant_id,
            (${CAP_WINDOW_USED})::text as used,
            (select available from merchant_balances where merchant_id = m.id)::text as available,
            (select coalesce(json_agg(json_build_object('network', network, 'address', address, 'usable_ms', (extract(epoch from usable_at) * 1000)::float8, 'memo', memo)), '[]')
               from withdrawal_whitelist where merchant_id = m.id and removed_at is null) as whitelist,
            (select coalesce(json_agg(json_build_object('reference', reference, 'uuid', uuid)), '[]')
               from withdrawals where merchant_id = m.id and reference = any($3::text[])) as known
       from unnest($1::uuid[]) as m(id)`;

/**
 * Everything judged under the locks, for each merchant (keyed by its id in lower case). Must be its
 * own statement, after the lock: a statement's snapshot is taken when it starts, so only a read
 * issued once the locks are granted sees every withdrawal and balance change committed by their
 * previous holders (a SELECT … FOR UPDATE that also read these would read them as of before its
 * wait). `references` may mix merchants: each merchant's `known` holds only its own withdrawals.
 */
export async function readUnderLock(q: Query, merchantIds: readonly string[], since: Date, references: readonly string[]): Promise<Map<string, UnderLock>> {
  const rows = await q<{ merchant_id: string; used: string; available: string | null; whitelist: unknown; known: unknown }>(
    UNDER_LOCK,
    [merchantIds, since.toISOString(), references],
    'chainpay_wd_under_locks',
  );
  const states = new Map<string, UnderLock>();
  for (const row of rows) {
    const known = parseJson<{ reference: string; uuid: string }[]>(row.known);
    states.set(row.merchant_id, {
      used: canonicalDecimal(row.used),
      available: canonicalDecimal(row.available ?? '0'),
      whitelist: parseJson<WhitelistRows>(row.whitelist),
      known: new Map(known.map((k) => [k.reference, k.uuid])),
    });
  }
  return states;
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());
const jsonOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

const INSERT_WITHDRAWALS = `with inserted as (
       insert into withdrawals (uuid, merchant_id, reference, status, network, address, amount, network_fee, net_payout, tx_hash, signed_raw, signed_meta,
                                confirmations, rejection_reason, failure_reason, completed_at, open, actor_snapshot, created_at, updated_at, version, memo)
       select w.* from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[], $8::numeric[], $9::numeric[], $10::text[], $11::text[], $12::jsonb[],
                              $13::int[], $14::text[], $15::text[], $16::timestamptz[], $17::boolean[], $18::jsonb[], $19::timestamptz[], $20::timestamptz[], $21::int[], $22::text[])
         as w(uuid, merchant_id, reference, status, network, address, amount, network_fee, net_payout, tx_hash, signed_raw, signed_meta,
              confirmations, rejection_reason, failure_reason, completed_at, open, actor_snapshot, created_at, updated_at, version, memo)
     )
     ${OUTBOX_INSERT}
     ${outboxEventsSource(23)}`;

/**
 * The new rows (every column of the entity, as MikroORM would write them) and their outbox events,
 * in one statement. `snapshots[i]` is rows[i].actorSnapshot as JSON text. Events go in their
 * order (seq follows it). A repeated reference fails it with SQLSTATE 23505.
 */
export async function insertWithdrawals(q: Query, rows: readonly Withdrawal[], snapshots: readonly string[], events: readonly OutboxEvent[]): Promise<void> {
  await q(
    INSERT_WITHDRAWALS,
    [
      rows.map((r) => r.uuid),
      rows.map((r) => r.merchantId),
      rows.map((r) => r.reference),
      rows.map((r) => r.status),
      rows.map((r) => r.network),
      rows.map((r) => r.address),
      rows.map((r) => r.amount),
      rows.map((r) => r.networkFee),
      rows.map((r) => r.netPayout),
      rows.map((r) => r.txHash),
      rows.map((r) => r.signedRaw),
      rows.map((r) => jsonOrNull(r.signedMeta)),
      rows.map((r) => r.confirmations),
      rows.map((r) => r.rejectionReason),
      rows.map((r) => r.failureReason),
      rows.map((r) => iso(r.completedAt)),
      rows.map((r) => r.open),
      snapshots,
      rows.map((r) => iso(r.createdAt)),
      rows.map((r) => iso(r.updatedAt)),
      rows.map((r) => r.version),
      rows.map((r) => r.memo),
      ...outboxEventsParams(events),
    ],
    'chainpay_wd_insert',
  );
}
