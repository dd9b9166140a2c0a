import type { EntityManager } from '@mikro-orm/postgresql';
import { Invoice, InvoicePayment, OutboxEvent, Withdrawal } from '../store/entities';
import { invoiceView, toRestInvoice } from '../actors/invoices/invoice-view';
import { toRestWithdrawal, withdrawalView } from '../actors/withdrawals/withdrawal-view';
import { newEventId } from './event-id';

/**
 * Writes webhook events into the outbox inside the caller's transaction (the one that changed the
 * state), so an event exists exactly when its change was committed. The body is fixed here: the
 * dispatcher signs and sends these bytes unchanged on every attempt.
 */
export async function writeInvoiceEvents(em: EntityManager, row: Invoice, types: readonly string[], publicUrl: string, now: Date): Promise<void> {
  const payments = await em.find(InvoicePayment, { invoiceUuid: row.uuid });
  const data = toRestInvoice(invoiceView(row, payments, publicUrl));
  for (const type of types) {
    const id = newEventId();
    const body = JSON.stringify({ id, type, created_at: now.toISOString(), data });
    const event = new OutboxEvent(id, row.merchantId, 'invoice', row.uuid, type, body, now);
    event.targetUrl = row.webhookUrl;
    em.persist(event);
  }
  await em.flush();
}

/**
 * Withdrawal events (`withdrawal.<status>`): data is the REST Withdrawal; sent to the merchant's webhook URL.
 * Persisted only: every caller runs inside `em.transactional`, which flushes them with its commit
 * (a batch of withdrawals then inserts all its events in one statement).
 */
export async function writeWithdrawalEvents(em: EntityManager, row: Withdrawal, types: readonly string[], now: Date): Promise<void> {
  for (const event of withdrawalEvents(row, types, now)) em.persist(event);
}

/**
 * The outbox rows of withdrawal events, not yet written (pure but for the random event ids): what
 * writeWithdrawalEvents persists, and what the creating transaction inserts with raw SQL
 * (actors/withdrawals/creation-sql.ts) in the same columns.
 */
export function withdrawalEvents(row: Withdrawal, types: readonly string[], now: Date): OutboxEvent[] {
  const data = toRestWithdrawal(withdrawalView(row));
  return types.map((type) => {
    const id = newEventId();
    const body = JSON.stringify({ id, type, created_at: now.toISOString(), data });
    return new OutboxEvent(id, row.merchantId, 'withdrawal', row.uuid, type, body, now);
  });
}
