import Decimal from 'decimal.js';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { QueryResult } from '@mikro-orm/core';
import { Journal, LedgerEntry } from '../entities';
import { canonicalDecimal } from './network-settings';

export interface LedgerLine {
  readonly account: string;
  /** Signed decimal string; the lines of one journal sum to exactly zero. */
  readonly amount: string;
}

export class UnbalancedJournalError extends Error {
  override readonly name = 'UnbalancedJournalError';
  constructor(readonly reference: string, readonly sum: string) {
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
  const pending: { journal: Journal; lines: LedgerLine[] }[] = [];
  for (const j of journals) {
    const nonZero = j.lines.filter((l) => !new Decimal(l.amount).isZero());
    const sum = nonZero.reduce((acc, l) => acc.plus(l.amount), new Decimal(0));
    if (!sum.isZero()) throw new UnbalancedJournalError(j.reference, sum.toFixed());
    if (nonZero.length > 0) pending.push({ journal: new Journal(j.reference, j.kind, at), lines: nonZero });
  }
  if (pending.length === 0) return 0;
  const inserted = await em.execute<{ id: string }[]>(
    `insert into journals (id, reference, kind, created_at) values ${pending.map(() => '(?, ?, ?, ?)').join(', ')} on conflict (reference) do nothing returning id`,
    pending.flatMap(({ journal }) => [journal.id, journal.reference, journal.kind, at]),
  );
  const booked = new Set(inserted.map((r) => r.id));
  const entries: unknown[][] = [];
  const moves = new Map<string, { available: Decimal; held: Decimal }>();
  for (const { journal, lines } of pending) {
    if (!booked.has(journal.id)) continue;
    for (const line of lines) {
      const m = MERCHANT_ACCOUNT.exec(line.account);
      entries.push([new LedgerEntry(journal.id, line.account, line.amount, null, at).id, journal.id, line.account, line.amount, m?.[1] ?? null, at]);
      if (m) {
        const move = moves.get(m[1]!) ?? { available: new Decimal(0), held: new Decimal(0) };
        const column = m[2] === 'available' ? 'available' : 'held';
        move[column] = move[column].plus(line.amount);
        moves.set(m[1]!, move);
      }
    }
  }
  if (entries.length === 0) return 0;
  await em.execute(`insert into ledger_entries (id, journal_id, account, amount, merchant_id, created_at) values ${entries.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`, entries.flat());
  for (const [merchantId, move] of moves) {
    const available = move.available.toFixed();
    const held = move.held.toFixed();
    // Update first: an upsert checks the constraint on the row it proposes to insert, so a debit
    // (negative amount) would be refused even when the balance covers it.
    const updated = await em.execute<QueryResult>(
      'update merchant_balances set available = available + ?, held = held + ?, updated_at = ?, version = version + 1 where merchant_id = ?',
      [available, held, at, merchantId],
      'run',
    );
    if (updated.affectedRows === 0) {
      await em.execute(
        `insert into merchant_balances (merchant_id, available, held, updated_at, version) values (?, ?, ?, ?, 1)
         on conflict (merchant_id) do update set available = merchant_balances.available + excluded.available, held = merchant_balances.held + excluded.held,
           updated_at = excluded.updated_at, version = merchant_balances.version + 1`,
        [merchantId, available, held, at],
      );
    }
  }
  return booked.size;
}

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
