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
  const nonZero = lines.filter((l) => !new Decimal(l.amount).isZero());
  const sum = nonZero.reduce((acc, l) => acc.plus(l.amount), new Decimal(0));
  if (!sum.isZero()) throw new UnbalancedJournalError(reference, sum.toFixed());
  if (nonZero.length === 0) return false;
  const journal = new Journal(reference, kind, at);
  const inserted = await em.execute<{ id: string }[]>(
    'insert into journals (id, reference, kind, created_at) values (?, ?, ?, ?) on conflict (reference) do nothing returning id',
    [journal.id, reference, kind, at],
  );
  if (inserted.length === 0) return false;
  for (const line of nonZero) {
    const m = MERCHANT_ACCOUNT.exec(line.account);
    await em.execute('insert into ledger_entries (id, journal_id, account, amount, merchant_id, created_at) values (?, ?, ?, ?, ?, ?)', [
      new LedgerEntry(journal.id, line.account, line.amount, null, at).id, journal.id, line.account, line.amount, m?.[1] ?? null, at,
    ]);
    if (m) {
      const column = m[2] === 'available' ? 'available' : 'held';
      // Update first: an upsert checks the constraint on the row it proposes to insert, so a
      // debit (negative amount) would be refused even when the balance covers it.
      const updated = await em.execute<QueryResult>(
        `update merchant_balances set ${column} = ${column} + ?, updated_at = ?, version = version + 1 where merchant_id = ?`,
        [line.amount, at, m[1]],
        'run',
      );
      if (updated.affectedRows === 0) {
        await em.execute(
          `insert into merchant_balances (merchant_id, ${column}, updated_at, version) values (?, ?, ?, 1)
           on conflict (merchant_id) do update set ${column} = merchant_balances.${column} + excluded.${column}, updated_at = excluded.updated_at, version = merchant_balances.version + 1`,
          [m[1], line.amount, at],
        );
      }
    }
  }
  return true;
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
