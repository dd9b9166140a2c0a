import { formatAmount, toDecimal } from './decimal';
import type { InvoiceMachineContext } from './invoice-context';
import type { InvoiceMachineEvent } from './invoice-events';
import { isCount, isValidTransfer, recordConfirmations, recordRevert, recordTransfer, summarizePayments } from './invoice-payment';
import { deriveStatus, isTerminalInvoiceStatus, lateMoneyChangedOutcome } from './invoice-status';

/**
 * The invoice rules as one pure step: context + event → context. The machine's actions are this
 * function; the state nodes only mirror `status` and own the timers.
 * Order matters: time first (an event at or after expires_at expires the invoice before its
 * payment is applied, so that payment is late), then the observation, then the status.
 */
export function applyInvoiceEvent(ctx: InvoiceMachineContext, event: InvoiceMachineEvent): InvoiceMachineContext {
  const at = event.at ?? ctx.observedAt;
  let next = advanceInvoiceTime(ctx, at);
  const now = next.observedAt;
  // Past the late-payment window nothing more is credited here (the address is released).
  if (isLateWindowOver(next)) return next;
  switch (event.type) {
    case 'TRANSFER_SEEN': {
      if (!isValidTransfer(event.payment)) break;
      const late = next.expired || isTerminalInvoiceStatus(next.status);
      const payments = recordTransfer(next.payments, event.payment, { requiredConfirmations: next.requiredConfirmations, at: now, late });
      next = { ...next, payments };
      break;
    }
    case 'CONFIRMATIONS':
      if (!isCount(event.confirmations)) break;
      next = { ...next, payments: recordConfirmations(next.payments, event.key, event.confirmations, next.requiredConfirmations) };
      break;
    case 'TRANSFER_REVERTED':
      next = { ...next, payments: recordRevert(next.payments, event.key) };
      break;
    case 'NETWORK_CHANGED':
      if (!canChangeNetwork(next) || !isCount(event.requiredConfirmations) || !/^\d+(\.\d+)?$/.test(event.payAmount)) return next;
      // Reverted transfers belonged to the old network's address: drop them with it.
      next = { ...next, payAmount: formatAmount(toDecimal(event.payAmount)), requiredConfirmations: event.requiredConfirmations, payments: [] };
      break;
    case 'RESUME':
      break;
  }
  return settleInvoice(next);
}

/**
 * Move the machine's notion of now forward (never back) and settle: reaching expires_at expires
 * the invoice. Used for events and for timers firing at their due time.
 */
export function advanceInvoiceTime(ctx: InvoiceMachineContext, at: string): InvoiceMachineContext {
  const ms = Date.parse(at);
  if (!Number.isFinite(ms) || ms <= Date.parse(ctx.observedAt)) return ctx;
  const observedAt = new Date(ms).toISOString();
  return settleInvoice({ ...ctx, observedAt, expired: ctx.expired || ms >= Date.parse(ctx.expiresAt) });
}

/** Recompute the derived fields and the status; stamp paidAt / endedAt / paidLate on the way. */
export function settleInvoice(ctx: InvoiceMachineContext): InvoiceMachineContext {
  const summary = summarizePayments(ctx.payments, ctx.requiredConfirmations);
  const status = deriveStatus(ctx, { expired: ctx.expired });
  const next = { ...ctx, ...summary, status };
  if (status === ctx.status) return next;
  const ended = isTerminalInvoiceStatus(status);
  // An invoice that ends by expiring (not by a payment) ended at expires_at, even when we learn it later.
  const endedByExpiry = (ctx.status === 'pending' || ctx.status === 'partially_paid') && (status === 'expired' || status === 'underpaid');
  const endedBy = endedByExpiry ? ctx.expiresAt : ctx.observedAt;
  return {
    ...next,
    paidAt: next.paidAt ?? (status === 'paid' || status === 'overpaid' ? ctx.observedAt : null),
    endedAt: next.endedAt ?? (ended ? endedBy : null),
    paidLate: next.paidLate || (ended && lateMoneyChangedOutcome(next)),
  };
}

/** REST rule: the network may change only while pending, unexpired, with nothing received. */
export function canChangeNetwork(ctx: InvoiceMachineContext): boolean {
  return ctx.status === 'pending' && !ctx.expired && ctx.payments.every((p) => p.state === 'reverted');
}

/** When the late-payment window closes (null while the invoice has not ended). */
export function lateWindowEndsAt(ctx: InvoiceMachineContext): string | null {
  return ctx.endedAt === null ? null : new Date(Date.parse(ctx.endedAt) + ctx.lateWindowMs).toISOString();
}

export function isLateWindowOver(ctx: InvoiceMachineContext): boolean {
  const end = lateWindowEndsAt(ctx);
  return end !== null && Date.parse(ctx.observedAt) >= Date.parse(end);
}

/** Milliseconds from the machine's now until `iso` (0 when due). */
export function msUntil(ctx: InvoiceMachineContext, iso: string | null): number {
  if (iso === null) return 0;
  return Math.max(0, Date.parse(iso) - Date.parse(ctx.observedAt));
}
