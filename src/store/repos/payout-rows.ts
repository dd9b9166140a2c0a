import type { Query } from '../raw-sql';

/**
 * The signed payout as the withdrawals row stores it (migration 20261128020000-payout-book). Generic
 * over chain families: the family's own data is the opaque `signed_meta`; the host reads only its
 * own keys there (HOST_META) and the wallet / sequence columns the family filled in.
 */
export interface StoredPayout {
  readonly txHash: string;
  readonly raw: string;
  readonly meta: Record<string, string | number>;
  readonly wallet?: string;
  readonly sequence?: number;
}

/** The row of a payout step, read under the row's lock (sign, bump) or without (check). */
export interface PayoutRow {
  readonly status: string;
  readonly payout: StoredPayout | null;
  /** Signatures made after an expiry so far (0: only the first one). */
  readonly attempt: number;
  /** The withdrawal's memo (TON: the payout's text comment); null elsewhere. */
  readonly memo: string | null;
}

/**
 * Meta keys chainpay adds to an adapter's signed payout: when it was signed, its own hash, and the
 * hashes of earlier transactions of this payout that expired. The row's tx_hash is null until
 * broadcast, then the version that counts (which may be an older one that was mined); the newest
 * signed version is only ever read from signed_meta.
 */
export const HOST_META = { signedAt: 'signed_at_ms', latest: 'latest_tx_hash', expired: 'expired_tx_hashes' } as const;

interface Row {
  status: string;
  tx_hash: string | null;
  signed_raw: string | null;
  signed_meta: Record<string, string | number> | string | null;
  payout_wallet: string | null;
  payout_sequence: string | null;
  payout_attempt: number;
  memo: string | null;
}

const COLUMNS = 'status, tx_hash, signed_raw, signed_meta, payout_wallet, payout_sequence::text as payout_sequence, payout_attempt, memo';

/** The row's payout, locked until the caller's transaction ends; null when the row does not exist. */
export async function lockPayoutRow(q: Query, uuid: string): Promise<PayoutRow | null> {
  const rows = await q<Row>(`select ${COLUMNS} from withdrawals where uuid = $1 for update`, [uuid], 'chainpay_payout_lock_row');
  return rows[0] ? payoutRowOf(rows[0]) : null;
}

/** The row's payout as committed (no lock). */
export async function readPayoutRow(q: Query, uuid: string): Promise<PayoutRow | null> {
  const rows = await q<Row>(`select ${COLUMNS} from withdrawals where uuid = $1`, [uuid], 'chainpay_payout_read_row');
  return rows[0] ? payoutRowOf(rows[0]) : null;
}

/**
 * Stores a signed payout on the row, before it is ever broadcast. tx_hash stays as it is (null until
 * the first broadcast; the actor's commit sets it): the signed hash is in signed_meta.
 */
export async function storeSignedPayout(q: Query, uuid: string, payout: StoredPayout, attempt: number, now: Date): Promise<void> {
  await q(
    `update withdrawals set signed_raw = $1, signed_meta = $2::jsonb, payout_wallet = $3, payout_sequence = $4::bigint, payout_attempt = $5, updated_at = $6::timestamptz where uuid = $7`,
    [payout.raw, JSON.stringify(payout.meta), payout.wallet ?? null, payout.sequence ?? null, attempt, now.toISOString(), uuid],
    'chainpay_payout_store_signed',
  );
}

/**
 * PayoutBook.highestOpenSequence: the highest sequence among a wallet's stored signed payouts whose
 * withdrawal is open, leaving out `exceptUuid`; and the gas top-ups the treasury stored signed from
 * the same wallet for a sweep still in its top-up phase (src/treasury: one nonce book for both; once the
 * top-up is mined the node's count covers its nonce). Only `processing` rows are ever signed and open (the
 * status index keeps this cheap). Runs in the signing transaction.
 */
export async function highestOpenSequence(q: Query, wallet: string, exceptUuid?: string): Promise<number | null> {
  const rows = await q<{ n: string | null }>(
    `select greatest(
        (select max(payout_sequence) from withdrawals
          where status = 'processing' and open and signed_raw is not null and payout_wallet = $1 and uuid <> $2::uuid),
        (select max(topup_sequence) from sweeps where open and (state = 'created' or state like 'topUp%') and topup_raw is not null and topup_wallet = $1 and id <> $2::uuid))::text as n`,
    [wallet, exceptUuid ?? '00000000-0000-0000-0000-000000000000'],
    'chainpay_payout_highest_sequence',
  );
  const n = rows[0]?.n;
  return n === null || n === undefined ? null : Number(n);
}

function payoutRowOf(row: Row): PayoutRow {
  return { status: row.status, payout: storedPayoutOf(row), attempt: row.payout_attempt, memo: row.memo ?? null };
}

/** The newest signed version on the row, or null before signing. */
function storedPayoutOf(row: Row): StoredPayout | null {
  if (row.signed_raw === null) return null;
  const meta = (typeof row.signed_meta === 'string' ? JSON.parse(row.signed_meta) : (row.signed_meta ?? {})) as Record<string, string | number>;
  const latest = meta[HOST_META.latest];
  const txHash = typeof latest === 'string' ? latest : row.tx_hash;
  // Never treated as unsigned (that would sign a second transaction): a stored raw without a hash is a bug.
  if (txHash === null) throw new Error('a signed payout is stored without its hash');
  return {
    txHash,
    raw: row.signed_raw,
    meta,
    ...(row.payout_wallet !== null ? { wallet: row.payout_wallet } : {}),
    ...(row.payout_sequence !== null ? { sequence: Number(row.payout_sequence) } : {}),
  };
}
