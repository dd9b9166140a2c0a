import type { SweepTx } from '../chains/sweeps';
import { isUniqueViolation, toDate, type Query } from '../store/raw-sql';
import { canonicalDecimal } from '../store/repos/network-settings';
import type { SweepOutcome } from './sweep-machine';

/** One row of `sweeps` (migration 20261129140000-treasury). */
export interface SweepRow {
  readonly id: string;
  readonly network: string;
  readonly address: string;
  readonly derivationIndex: number;
  readonly target: 'hot' | 'cold';
  readonly destination: string;
  readonly amount: string;
  readonly gasTopUp: string;
  readonly state: string;
  readonly outcome: SweepOutcome | null;
  readonly snapshot: unknown;
  readonly topUp: SweepTx | null;
  readonly transfer: SweepTx | null;
  readonly fee: string | null;
  readonly manual: boolean;
  readonly open: boolean;
  readonly error: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export type NewSweep = Pick<SweepRow, 'id' | 'network' | 'address' | 'derivationIndex' | 'target' | 'destination' | 'amount' | 'gasTopUp' | 'manual'>;

/** Inserts an open sweep; null when the address already has one (sweeps_open_address: swept once). */
export async function insertSweep(q: Query, s: NewSweep, now: Date): Promise<SweepRow | null> {
  try {
    const rows = await q<Record<string, unknown>>(
      `insert into sweeps (id, network, address, derivation_index, target, destination, amount, gas_topup, state, manual, open, created_at, updated_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, 'created', $9, true, $10, $10) returning *`,
      [s.id, s.network, s.address, s.derivationIndex, s.target, s.destination, s.amount, s.gasTopUp, s.manual, now.toISOString()],
    );
    return rowOf(rows[0]!);
  } catch (error) {
    if (isUniqueViolation(error, 'sweeps_open_address')) return null;
    throw error;
  }
}

export async function readSweep(q: Query, id: string): Promise<SweepRow | null> {
  const rows = await q<Record<string, unknown>>('select * from sweeps where id = $1', [id]);
  return rows[0] ? rowOf(rows[0]) : null;
}

export async function openSweeps(q: Query, network?: string): Promise<SweepRow[]> {
  const rows = await q<Record<string, unknown>>(`select * from sweeps where open ${network ? 'and network = $1' : ''} order by created_at`, network ? [network] : []);
  return rows.map(rowOf);
}

/**
 * Stores a signed transaction on the row unless one is stored already; returns the stored one (this
 * or the earlier): a re-run after a crash broadcasts what was stored, never a new signature.
 */
export async function storeTx(q: Query, id: string, which: 'topup' | 'transfer', tx: SweepTx, now: Date): Promise<SweepTx> {
  const wallet = which === 'topup' ? ', topup_wallet = $6, topup_sequence = $7' : '';
  const values: unknown[] = [id, tx.raw, tx.txHash, JSON.stringify(tx.meta), now.toISOString()];
  if (which === 'topup') values.push(tx.wallet ?? null, tx.sequence ?? null);
  await q(`update sweeps set ${which}_raw = $2, ${which}_tx_hash = $3, ${which}_meta = $4::jsonb, updated_at = $5 ${wallet} where id = $1 and ${which}_raw is null`, values);
  const row = await readSweep(q, id);
  const stored = which === 'topup' ? row?.topUp : row?.transfer;
  if (!stored) throw new Error(`sweep ${id}: ${which} not stored`); // invariant: the update above or an earlier one stored it
  return stored;
}

export async function saveSnapshot(q: Query, id: string, state: string, snapshot: unknown, error: string | null, now: Date): Promise<void> {
  await q('update sweeps set state = $2, snapshot = $3::jsonb, error = $4, updated_at = $5 where id = $1 and open', [id, state, JSON.stringify(snapshot), error, now.toISOString()]);
}

export async function recordFee(q: Query, id: string, fee: string): Promise<void> {
  await q('update sweeps set fee = coalesce(fee, 0) + $2 where id = $1', [id, fee]);
}

export async function closeSweep(q: Query, id: string, outcome: SweepOutcome, now: Date): Promise<void> {
  await q('update sweeps set open = false, outcome = $2, state = $2, updated_at = $3 where id = $1 and open', [id, outcome, now.toISOString()]);
}

function txOf(raw: unknown, hash: unknown, meta: unknown, wallet?: unknown, sequence?: unknown): SweepTx | null {
  if (typeof raw !== 'string' || typeof hash !== 'string') return null;
  const m = (typeof meta === 'string' ? JSON.parse(meta) : (meta ?? {})) as Record<string, string | number>;
  return { txHash: hash, raw, meta: m, ...(typeof wallet === 'string' ? { wallet } : {}), ...(sequence !== null && sequence !== undefined ? { sequence: Number(sequence) } : {}) };
}

function rowOf(r: Record<string, unknown>): SweepRow {
  return {
    id: String(r.id),
    network: String(r.network),
    address: String(r.address),
    derivationIndex: Number(r.derivation_index),
    target: r.target as 'hot' | 'cold',
    destination: String(r.destination),
    amount: canonicalDecimal(String(r.amount)),
    gasTopUp: canonicalDecimal(String(r.gas_topup)),
    state: String(r.state),
    outcome: (r.outcome as SweepOutcome | null) ?? null,
    snapshot: typeof r.snapshot === 'string' ? JSON.parse(r.snapshot) : (r.snapshot ?? null),
    topUp: txOf(r.topup_raw, r.topup_tx_hash, r.topup_meta, r.topup_wallet, r.topup_sequence),
    transfer: txOf(r.transfer_raw, r.transfer_tx_hash, r.transfer_meta),
    fee: r.fee === null || r.fee === undefined ? null : canonicalDecimal(String(r.fee)),
    manual: Boolean(r.manual),
    open: Boolean(r.open),
    error: (r.error as string | null) ?? null,
    createdAt: toDate(r.created_at),
    updatedAt: toDate(r.updated_at),
  };
}
