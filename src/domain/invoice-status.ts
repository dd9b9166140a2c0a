import { toDecimal, type Decimal } from './decimal';
import type { InvoiceMachineContext } from './invoice-context';

import { isTerminalInvoiceStatus, type InvoiceStatus, type TerminalInvoiceStatus } from './invoice-statuses';

export { INVOICE_STATUSES, TERMINAL_INVOICE_STATUSES, isTerminalInvoiceStatus, type InvoiceStatus, type TerminalInvoiceStatus } from './invoice-statuses';

/** Outcomes only ever move up this order (confirmed money is never removed). */
// canceled ranks with expired: money arriving after a cancel is late money, booked like any other.
const OUTCOME_RANK: Record<TerminalInvoiceStatus, number> = { expired: 0, canceled: 0, underpaid: 1, paid: 2, overpaid: 3 };

type StatusInputs = Pick<InvoiceMachineContext, 'status' | 'payments' | 'payAmount' | 'underpaymentTolerance'>;

/** The outcome a confirmed total gives once the invoice has ended. */
export function outcomeOf(confirmed: Decimal, ctx: Pick<InvoiceMachineContext, 'payAmount' | 'underpaymentTolerance'>): TerminalInvoiceStatus {
  const pay = toDecimal(ctx.payAmount);
  if (confirmed.lessThanOrEqualTo(0)) return 'expired';
  if (confirmed.lessThan(pay.minus(toDecimal(ctx.underpaymentTolerance)))) return 'underpaid';
  return confirmed.lessThanOrEqualTo(pay) ? 'paid' : 'overpaid';
}

/** Sum of the confirmed payments (optionally only those seen before the invoice ended). */
export function confirmedTotal(ctx: Pick<InvoiceMachineContext, 'payments'>, opts: { includeLate: boolean } = { includeLate: true }): Decimal {
  return ctx.payments.filter((p) => p.state === 'confirmed' && (opts.includeLate || !p.late)).reduce((sum, p) => sum.plus(toDecimal(p.amount)), toDecimal('0'));
}

/**
 * The status an invoice's context calls for. Pure; the machine applies it after every event.
 * - Ended (terminal) invoices only move up to the outcome of all confirmed money (late payments).
 * - Before expiry: nothing live → pending; an unconfirmed payment while the confirmed total is
 *   below pay_amount → confirming; else the confirmed total decides: paid (within the tolerance),
 *   overpaid, or partially_paid (the buyer may top up).
 * - After expiry: payments seen in time and still unconfirmed keep it confirming (they were sent in
 *   time); otherwise the confirmed total decides: expired (nothing), underpaid, paid, overpaid.
 */
export function deriveStatus(ctx: StatusInputs, opts: { expired: boolean }): InvoiceStatus {
  const confirmed = confirmedTotal(ctx);
  if (isTerminalInvoiceStatus(ctx.status)) {
    const outcome = outcomeOf(confirmed, ctx);
    return OUTCOME_RANK[outcome] > OUTCOME_RANK[ctx.status] ? outcome : ctx.status;
  }
  const live = ctx.payments.filter((p) => p.state !== 'reverted');
  const waiting = live.some((p) => p.state === 'confirming' && !p.late);
  if (opts.expired) return waiting ? 'confirming' : outcomeOf(confirmed, ctx);
  if (live.length === 0) return 'pending';
  if (waiting && confirmed.lessThan(toDecimal(ctx.payAmount))) return 'confirming';
  const outcome = outcomeOf(confirmed, ctx);
  if (outcome === 'expired') return waiting ? 'confirming' : 'pending'; // only zero-amount payments so far
  return outcome === 'underpaid' ? 'partially_paid' : outcome;
}

/** True when late money (seen after the invoice ended) changed its outcome: `paid_late`. */
export function lateMoneyChangedOutcome(ctx: Pick<InvoiceMachineContext, 'payments' | 'payAmount' | 'underpaymentTolerance'>): boolean {
  return outcomeOf(confirmedTotal(ctx), ctx) !== outcomeOf(confirmedTotal(ctx, { includeLate: false }), ctx);
}
