import Decimal from 'decimal.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { QueryResult } from '@mikro-orm/core';
import { Journal, LedgerEntry } from '../entities';
import type { Query } from '../raw-sql';
import { canonicalDecimal } from './network-settings';

export interface LedgerLine {
  readonly account: string;
  /** Signed decimal string; the lines of one journal sum to exactly zero. */
  readonly amount: string;
}

export class UnbalancedJournalError extends Error {
  override readonly name = 'UnbalancedJournalError';
  constructor(
    readonly reference: string,
    readonly sum: string,
  ) {
    super('journal does not balance');
  }
}

const MERCHANT_ACCOUNT = /^merchant:([0-9a-f-]{36}):(available|held)$/;

export const merchantAvailable = (merchantId: string): string => `merchant:${merchantId}:available`;
export const merchantHeld = (merchantId: string): string => `merchant:${merchantId}:held`;

/**
 * Double-entry ledger. Must run inside the caller's transaction, so a booking commits or rolls back
 * with the state change that caused it. Returns false when `reference` was booked before (idempotent).
 * Merchant balances move with the entries; the table's check constraint refuses a negative balance.
 * SQL goes through `em.execute` (the em's transaction); `em.getConnection().execute` would run
 * outside it, on another pooled connection, and commit on its own.
 */
export async function postJournal(em: EntityManager, reference: string, kind: string, lines: readonly LedgerLine[], at: Date): Promise<boolean> {
  return (await postJournals(em, [{ reference, kind, lines }], at)) === 1;
}

export interface JournalInput {
  readonly reference: string;
  readonly kind: string;
  readonly lines: readonly LedgerLine[];
}

/**
 * Several journals in a constant number of statements (a batch of withdrawals commits this way):
 * one multi-row insert of the journals, one of their entries, one balance update per merchant with
 * the summed movement. Same rules as postJournal, per journal: each must balance, a reference
 * booked before is skipped. Returns how many journals were booked. The check constraint judges the
 * final balance of each merchant; callers that need every intermediate balance to stay covered
 * (withdrawal holds) check that themselves under the merchant's lock before booking.
 */
export async function postJournals(em: EntityManager, journals: readonly JournalInput[], at: Date): Promise<number> {
  const plan = planJournals(journals, at);
  if (plan.length === 0) return 0;
  const inserted = await em.execute<{ id: string }[]>(
    `insert into journals (id, reference, kind, created_at) values ${plan.map(() => '(?, ?, ?, ?)').join(', ')} on conflict (reference) do nothing returning id`,
    plan.flatMap(({ journal }) => [journal.id, journal.reference, journal.kind, at]),
  );
  const booked = bookedMoves(
    plan,
    inserted.map((r) => r.id),
    at,
  );
  if (booked.entries.length === 0) return 0;
  await em.execute(
    `insert into ledger_entries (id, journal_id, account, amount, merchant_id, created_at) values ${booked.entries.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
    booked.entries.flatMap((e) => [e.id, e.journalId, e.account, e.amount, e.merchantId, at]),
  );
  for (const move of booked.moves) {
    // Update first: an upsert checks the constraint on the row it proposes to insert, so a debit
    // (negative amount) would be refused even when the balance covers it.
    const updated = await em.execute<QueryResult>(
      'update merchant_balances set available = available + ?, held = held + ?, updated_at = ?, version = version + 1 where merchant_id = ?',
      [move.available, move.held, at, move.merchantId],
      'run',
    );
    if (updated.affectedRows === 0) await em.execute(INSERT_BALANCE, [move.merchantId, move.available, move.held, at]);
  }
  return booked.journals;
}

/** A merchant without a balance row yet (its first booking): created with the movement. */
const INSERT_BALANCE = `insert into merchant_balances (merchant_id, available, held, updated_at, version) values (?, ?, ?, ?, 1)
         on conflict (merchant_id) do update set available = merchant_balances.available + excluded.available, held = merchant_balances.held + excluded.held,
           updated_at = excluded.updated_at, version = merchant_balances.version + 1`;
const INSERT_BALANCE_SQL = INSERT_BALANCE.replace('(?, ?, ?, ?, 1)', '($1, $2, $3, $4, 1)');

/** A journal to insert: its row (with its id) and its non-zero lines. */
export interface PlannedJournal {
  readonly journal: Journal;
  readonly lines: readonly LedgerLine[];
}

/** The ledger rows of the journals that were booked, and the summed movement of each merchant's balance. */
export interface BookedMoves {
  readonly journals: number;
  readonly entries: readonly { id: string; journalId: string; account: string; amount: string; merchantId: string | null }[];
  readonly moves: readonly { merchantId: string; available: string; held: string }[];
}

/**
 * Pure first half of postJournals (both forms): every journal must balance (else
 * UnbalancedJournalError, nothing is written); zero lines are dropped, and a journal with no line
 * left is not booked at all.
 */
export function planJournals(journals: readonly JournalInput[], at: Date): PlannedJournal[] {
  const pending: PlannedJournal[] = [];
  for (const j of journals) {
    const nonZero = j.lines.filter((l) => !new Decimal(l.amount).isZero());
    const sum = nonZero.reduce((acc, l) => acc.plus(l.amount), new Decimal(0));
    if (!sum.isZero()) throw new UnbalancedJournalError(j.reference, sum.toFixed());
    if (nonZero.length > 0) pending.push({ journal: new Journal(j.reference, j.kind, at), lines: nonZero });
  }
  return pending;
}

/** Pure second half: the entries of the journals whose insert was not skipped (`bookedIds`), and the balance movements. */
export function bookedMoves(plan: readonly PlannedJournal[], bookedIds: readonly string[], at: Date): BookedMoves {
  const booked = new Set(bookedIds);
  const entries: { id: string; journalId: string; account: string; amount: string; merchantId: string | null }[] = [];
  const moves = new Map<string, { available: Decimal; held: Decimal }>();
  for (const { journal, lines } of plan) {
    if (!booked.has(journal.id)) continue;
    for (const line of lines) {
      const m = MERCHANT_ACCOUNT.exec(line.account);
      entries.push({ id: new LedgerEntry(journal.id, line.account, line.amount, null, at).id, journalId: journal.id, account: line.account, amount: line.amount, merchantId: m?.[1] ?? null });
      if (m) {
        const move = moves.get(m[1]!) ?? { available: new Decimal(0), held: new Decimal(0) };
        const column = m[2] === 'available' ? 'available' : 'held';
        move[column] = move[column].plus(line.amount);
        moves.set(m[1]!, move);
      }
    }
  }
  return {
    journals: booked.size,
    entries,
    moves: [...moves].map(([merchantId, move]) => ({ merchantId, available: move.available.toFixed(), held: move.held.toFixed() })),
  };
}

/**
 * postJournals on a raw connection inside the caller's transaction (RawSql.transaction): the same
 * rows and rules (planJournals, bookedMoves) in ONE prepared statement whatever the number of
 * journals (arrays unnested server-side): the journals not booked before, the entries of those,
 * and the balance update of every merchant they move (its sums taken over the same entries). A
 * merchant without a balance row yet takes one more statement.
 */
export async function postJournalsSql(q: Query, journals: readonly JournalInput[], at: Date): Promise<number> {
  const plan = planJournals(journals, at);
  if (plan.length === 0) return 0;
  const lines = plan.flatMap(({ journal, lines }) =>
    lines.map((line) => {
      const m = MERCHANT_ACCOUNT.exec(line.account);
      return {
        id: new LedgerEntry(journal.id, line.account, line.amount, null, at).id,
        journalId: journal.id,
        account: line.account,
        amount: line.amount,
        merchantId: m?.[1] ?? null,
        side: m?.[2] ?? null,
      };
    }),
  );
  const [result] = await q<{ booked: string[]; updated: string[] }>(
    POST_JOURNALS_SQL,
    [
      plan.map((p) => p.journal.id),
      plan.map((p) => p.journal.reference),
      plan.map((p) => p.journal.kind),
      at.toISOString(),
      lines.map((l) => l.id),
      lines.map((l) => l.journalId),
      lines.map((l) => l.account),
      lines.map((l) => l.amount),
      lines.map((l) => l.merchantId),
      lines.map((l) => l.side),
    ],
    'chainpay_ledger_post',
  );
  // The same movements in JS (bookedMoves, as the EntityManager form computes them): for a merchant
  // the update found no row for, the row is created with them.
  const booked = bookedMoves(plan, result!.booked, at);
  const updated = new Set(result!.updated);
  for (const move of booked.moves) {
    if (!updated.has(move.merchantId)) await q(INSERT_BALANCE_SQL, [move.merchantId, move.available, move.held, at.toISOString()]);
  }
  return booked.entries.length === 0 ? 0 : booked.journals;
}

const POST_JOURNALS_SQL = `with journal as (
       insert into journals (id, reference, kind, created_at)
       select j.id, j.reference, j.kind, $4::timestamptz from unnest($1::uuid[], $2::text[], $3::text[]) with ordinality as j(id, reference, kind, n) order by j.n
       on conflict (reference) do nothing
       returning id
     ),
     line as (
       select l.* from unnest($5::uuid[], $6::uuid[], $7::text[], $8::numeric[], $9::uuid[], $10::text[]) with ordinality as l(id, journal_id, account, amount, merchant_id, side, n)
        where l.journal_id in (select id from journal)
     ),
     entry as (
       insert into ledger_entries (id, journal_id, account, amount, merchant_id, created_at)
       select id, journal_id, account, amount, merchant_id, $4::timestamptz from line order by n
     ),
     -- Update, never upsert: an upsert checks the constraint on the row it proposes to insert, so a
     -- debit would be refused even when the balance covers it. The check constraint refuses the
     -- statement (and so the transaction) when a balance would go negative.
     balance as (
       update merchant_balances b set available = b.available + m.available, held = b.held + m.held, updated_at = $4::timestamptz, version = b.version + 1
         from (select merchant_id, sum(case when side = 'available' then amount else 0 end) as available, sum(case when side = 'held' then amount else 0 end) as held
                 from line where merchant_id is not null group by merchant_id) m
        where b.merchant_id = m.merchant_id
       returning b.merchant_id
     )
     select array(select id::text from journal) as booked, array(select merchant_id::text from balance) as updated`;

export async function merchantBalance(em: EntityManager, merchantId: string): Promise<{ available: string; held: string }> {
  const rows = await em.execute<{ available: string; held: string }[]>('select available, held from merchant_balances where merchant_id = ?', [merchantId]);
  const row = rows[0];
  return { available: canonicalDecimal(row?.available ?? '0'), held: canonicalDecimal(row?.held ?? '0') };
}

/** Sum of all entries of an account (for audits and tests: must equal the cached balance). */
export async function accountSum(em: EntityManager, account: string): Promise<string> {
  const rows = await em.execute<{ s: string | null }[]>('select sum(amount)::text as s from ledger_entries where account = ?', [account]);
  return canonicalDecimal(rows[0]?.s ?? '0');
}
