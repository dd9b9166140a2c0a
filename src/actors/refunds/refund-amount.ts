import { formatAmount, toDecimal } from '../../domain/decimal';
import { ConflictError, ValidationError } from '../../domain/errors';

/** What the creating transaction read of the invoice, under its row lock. */
export interface RefundableInvoice {
  readonly status: string;
  /** The confirmed amount the ledger booked as received (invoices.booked_received). */
  readonly received: string;
  readonly payAmount: string;
  readonly paidLate: boolean;
  /** Sum of its refunds that are not rejected, failed, expired or canceled. */
  readonly refunded: string;
}

/** Statuses whose money has settled: an open invoice (pending, confirming, partially_paid) is not refunded. */
const REFUNDABLE = new Set(['paid', 'overpaid', 'underpaid', 'expired', 'canceled']);

/**
 * The refund's amount: the one asked for, or by status the excess of an overpaid invoice, and
 * everything received for an underpaid, expired, canceled or late-paid one; a paid invoice needs
 * an explicit amount (422 `amount_required`). Either way never more than what the invoice received
 * less what its live refunds already took (422 `refund_exceeds_received`, details.refundable).
 */
export function refundAmount(invoice: RefundableInvoice, asked: string | null): string {
  if (!REFUNDABLE.has(invoice.status)) {
    throw new ConflictError('invoice_not_refundable', `an invoice in status ${invoice.status} cannot be refunded`, undefined, { status: invoice.status });
  }
  const refundable = toDecimal(invoice.received).minus(toDecimal(invoice.refunded));
  const details = { refundable: formatAmount(refundable.isNegative() ? toDecimal('0') : refundable) };
  let amount: ReturnType<typeof toDecimal>;
  if (asked !== null) amount = toDecimal(asked);
  else if (invoice.status === 'overpaid') amount = toDecimal(invoice.received).minus(toDecimal(invoice.payAmount)).minus(toDecimal(invoice.refunded));
  else if (invoice.status === 'paid' && !invoice.paidLate) throw new ValidationError('amount_required', 'a paid invoice is refunded by an explicit amount', 'amount');
  else amount = refundable;
  if (refundable.lessThanOrEqualTo(0) || amount.lessThanOrEqualTo(0)) throw new ValidationError('nothing_to_refund', 'the invoice has nothing left to refund', 'amount', details);
  if (amount.greaterThan(refundable)) {
    throw new ValidationError('refund_exceeds_received', `the invoice can refund at most ${details.refundable}`, 'amount', details);
  }
  return formatAmount(amount);
}
