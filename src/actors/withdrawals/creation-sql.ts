import type { Query } from '../../store/raw-sql';
import type { OutboxEvent, Withdrawal } from '../../store/entities';
import { canonicalDecimal } from '../../store/repos/network-settings';
import { OUTBOX_INSERT, outboxEventsParams, outboxEventsSource } from '../../webhooks/outbox';
import type { UsableRow } from './whitelist';

/**
 * The statements of the creating transaction (Withdrawals.createLocked), on a raw connection:
 * prepared once per connection, with constant texts whatever the batch size (arrays unnested
 * server-side). In order: the merchant's lock, one read of everything judged under it, one insert
 * of the rows and their outbox events, then the holds (postJournalsSql, two statements).
 */

const parseJson = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

export type WhitelistRows = readonly (UsableRow & { readonly network: string })[];

const WHITELIST_ROWS = `(select coalesce(json_agg(json_build_object('network', network, 'address', address, 'usable_ms', (extract(epoch from usable_at) * 1000)::float8)), '[]')
               from withdrawal_whitelist where merchant_id = $1 and removed_at is null)`;

/** Serializes creations per merchant (the row lock, until commit) and reads its caps; null for an unknown merchant. */
export async function lockMerchantCaps(q: Query, merchantId: string): Promise<{ perWithdrawal: string; daily: string } | null> {
  const rows = await q<{ per: string; daily: string }>(
    'select cap_per_withdrawal::text as per, cap_daily::text as daily from merchants where id = $1 for update',
    [merchantId],
    'chainpay_wd_lock_merchant',
  );
  return rows[0] ? { perWithdrawal: canonicalDecimal(rows[0].per), daily: canonicalDecimal(rows[0].daily) } : null;
}

export interface UnderLock {
  /** Sum of the rolling cap window: withdrawals since `since` that are not rejected or failed. */
  readonly used: string;
  readonly available: string;
  /** The merchant's active whitelist rows, every network. */
  readonly whitelist: WhitelistRows;
  /** reference -> uuid of the merchant's withdrawals with one of `references`. */
  readonly known: ReadonlyMap<string, string>;
}

/**
 * Must be its own statement, after the lock: a statement's snapshot is taken when it starts, so
 * only a read issued once the lock is granted sees every withdrawal and balance change committed
 * by the lock's previous holder (a SELECT … FOR UPDATE that also read these would read them as of
 * before its wait).
 */
export async function readUnderLock(q: Query, merchantId: string, since: Date, references: readonly string[]): Promise<UnderLock> {
  const [row] = await q<{ used: string; available: string | null; whitelist: unknown; known: unknown }>(
    `select (select coalesce(sum(amount), 0) from withdrawals where merchant_id = $1 and created_at > $2::timestamptz and status not in ('rejected', 'failed'))::text as used,
            (select available from merchant_balances where merchant_id = $1)::text as available,
            ${WHITELIST_ROWS} as whitelist,
            (select coalesce(json_agg(json_build_object('reference', reference, 'uuid', uuid)), '[]')
               from withdrawals where merchant_id = $1 and reference = any($3::text[])) as known`,
    [merchantId, since.toISOString(), references],
    'chainpay_wd_under_lock',
  );
  const known = parseJson<{ reference: string; uuid: string }[]>(row!.known);
  return {
    used: canonicalDecimal(row!.used),
    available: canonicalDecimal(row!.available ?? '0'),
    whitelist: parseJson<WhitelistRows>(row!.whitelist),
    known: new Map(known.map((k) => [k.reference, k.uuid])),
  };
}

const iso = (d: Date | null): string | null => (d === null ? null : d.toISOString());
const jsonOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));

const INSERT_WITHDRAWALS = `with inserted as (
       insert into withdrawals (uuid, merchant_id, reference, status, network, address, amount, network_fee, net_payout, tx_hash, signed_raw, signed_meta,
                                confirmations, rejection_reason, failure_reason, completed_at, open, actor_snapshot, created_at, updated_at, version)
       select w.* from unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::numeric[], $8::numeric[], $9::numeric[], $10::text[], $11::text[], $12::jsonb[],
                              $13::int[], $14::text[], $15::text[], $16::timestamptz[], $17::boolean[], $18::jsonb[], $19::timestamptz[], $20::timestamptz[], $21::int[])
         as w(uuid, merchant_id, reference, status, network, address, amount, network_fee, net_payout, tx_hash, signed_raw, signed_meta,
              confirmations, rejection_reason, failure_reason, completed_at, open, actor_snapshot, created_at, updated_at, version)
     )
     ${OUTBOX_INSERT}
     ${outboxEventsSource(22)}`;

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
      ...outboxEventsParams(events),
    ],
    'chainpay_wd_insert',
  );
}
