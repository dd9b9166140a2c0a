import { formatAmount, toDecimal } from './decimal';
import type { DepositTarget, InvoiceMachineContext } from './invoice-context';
import type { InvoiceMachineEvent } from './invoice-events';
import { isCount, isValidTransfer, paymentKey, recordConfirmations, recordRevert, recordTransfer, summarizePayments } from './invoice-payment';
import { confirmedTotal, deriveStatus, isTerminalInvoiceStatus, lateMoneyChangedOutcome, outcomeOf, type InvoiceStatus } from './invoice-status';

type TransferSeenEvent = Extract<InvoiceMachineEvent, { type: 'TRANSFER_SEEN' }>;
type NetworkChangedEvent = Extract<InvoiceMachineEvent, { type: 'NETWORK_CHANGED' }>;

/** Why the machine does not take a transfer; the host records it as unattributed with this reason. */
export type TransferRefusal = 'invalid_transfer' | 'target_changed' | 'late_window_over';

/*
 * The invoice rules as pure context steps. The machine (invoice-machine.ts) runs them as its
 * actions and decides the status itself: its states are the statuses, entered through guards that
 * call deriveStatus, and enterStatus stamps what a status change records. Order inside a step:
 * time first (an event at or after expires_at marks the invoice expired before its payment is
 * applied, so that payment is late), then the observation, then the derived amounts.
 * A transfer is in time when the earlier of its block's time and `at` is before expires_at: its
 * block time also moves the chain time (the watcher delivers blocks in order), so a transfer
 * mined after expires_at expires a waiting invoice first and is late.
 */

/** The event's time (a NETWORK_CHANGED may come without one: then the machine's now). */
export function eventTime(ctx: InvoiceMachineContext, event: { readonly at?: string }): string {
  return event.at ?? ctx.observedAt;
}

/** A transfer the invoice takes (transferRefusal is null for it on the ticked context). */
export function observeTransfer(ctx: InvoiceMachineContext, event: TransferSeenEvent): InvoiceMachineContext {
  let next = advanceInvoiceTime(ctx, eventTime(ctx, event));
  const now = next.observedAt;
  const blockTime = event.payment.blockTime;
  if (typeof blockTime === 'string' && Number.isFinite(Date.parse(blockTime))) {
    next = advanceChainTime(next, new Date(Math.min(Date.parse(blockTime), Date.parse(now))).toISOString());
  }
  const late = next.expired || isTerminalInvoiceStatus(next.status);
  const payments = recordTransfer(next.payments, event.payment, { requiredConfirmations: next.requiredConfirmations, at: now, late });
  return settleInvoice({ ...next, payments });
}

// Known payments are followed to the end, also past the late-payment window: the actor does not
// close while one is confirming (canClose), so its confirmations are never dropped.
export function observeConfirmations(ctx: InvoiceMachineContext, event: { key: string; confirmations: number; at: string }): InvoiceMachineContext {
  const next = advanceInvoiceTime(ctx, event.at);
  if (!isCount(event.confirmations)) return next;
  return settleInvoice({ ...next, payments: recordConfirmations(next.payments, event.key, event.confirmations, next.requiredConfirmations) });
}

export function observeRevert(ctx: InvoiceMachineContext, event: { key: string; at: string }): InvoiceMachineContext {
  const next = advanceInvoiceTime(ctx, event.at);
  return settleInvoice({ ...next, payments: recordRevert(next.payments, event.key) });
}

export function observeChainTime(ctx: InvoiceMachineContext, event: { chainTime: string; at: string }): InvoiceMachineContext {
  return advanceChainTime(advanceInvoiceTime(ctx, event.at), event.chainTime);
}

/** The network change is taken on the event's time: a change at or after expires_at is refused. */
export function networkChangeAllowed(ctx: InvoiceMachineContext, event: NetworkChangedEvent): boolean {
  return canChangeNetwork(advanceInvoiceTime(ctx, eventTime(ctx, event))) && isCount(event.requiredConfirmations) && /^\d+(\.\d+)?$/.test(event.payAmount);
}

/**
 * Only when networkChangeAllowed. Reverted transfers belonged to the old network's address: drop
 * them with it. The new network's chain time is known from now on only.
 */
export function changeNetwork(ctx: InvoiceMachineContext, event: NetworkChangedEvent): InvoiceMachineContext {
  const next = advanceInvoiceTime(ctx, eventTime(ctx, event));
  return settleInvoice({
    ...next,
    payAmount: formatAmount(toDecimal(event.payAmount)),
    requiredConfirmations: event.requiredConfirmations,
    payments: [],
    ...(event.target ? { target: event.target, chainTime: next.observedAt } : {}),
  });
}

/**
 * Null when the invoice takes the transfer. Not taken: a malformed one; one that landed somewhere
 * else than the invoice's deposit target (matched before a network change); after the late-payment
 * window, anything but a payment it already follows.
 */
export function transferRefusal(ctx: InvoiceMachineContext, event: TransferSeenEvent): TransferRefusal | null {
  if (!isValidTransfer(event.payment)) return 'invalid_transfer';
  // `target` is absent only in snapshots written before it existed: nothing to compare with.
  if (event.to !== undefined && ctx.target !== undefined && !sameTarget(ctx.target, event.to)) return 'target_changed';
  if (isLateWindowOver(ctx)) {
    const key = paymentKey(event.payment);
    if (!ctx.payments.some((p) => p.key === key && p.state !== 'reverted')) return 'late_window_over';
  }
  return null;
}

/**
 * What the machine announces for a TRANSFER_SEEN (emitted `transfer.refused`): transferRefusal, but
 * never for a payment the invoice already follows (a malformed or misdirected repeat of it is
 * ignored, the payment stays the invoice's: recording it as unattributed could credit it twice).
 */
export function refusalOf(ctx: InvoiceMachineContext, event: TransferSeenEvent): TransferRefusal | null {
  const refusal = transferRefusal(ctx, event);
  if (refusal === null) return null;
  const key = paymentKey(event.payment);
  return ctx.payments.some((p) => p.key === key && p.state !== 'reverted') ? null : refusal;
}

function sameTarget(target: DepositTarget, to: DepositTarget): boolean {
  return target.network === to.network && target.address === to.address && (target.memo === null || target.memo === to.memo);
}

/**
 * Move the machine's notion of now forward (never back). Reaching expires_at (on the clock and on
 * the chain, isExpiryDue) marks the invoice expired; its state moves on that (invoice-machine.ts).
 */
export function advanceInvoiceTime(ctx: InvoiceMachineContext, at: string): InvoiceMachineContext {
  const ms = Date.parse(at);
  if (!Number.isFinite(ms) || ms <= Date.parse(ctx.observedAt)) return ctx;
  return markExpiryIfDue({ ...ctx, observedAt: new Date(ms).toISOString() });
}

/** Move the chain time forward (never back); it may let the invoice expire. No-op without a network. */
export function advanceChainTime(ctx: InvoiceMachineContext, chainTime: string): InvoiceMachineContext {
  if (ctx.chainTime === null || ctx.chainTime === undefined) return ctx;
  const ms = Date.parse(chainTime);
  if (!Number.isFinite(ms) || ms <= Date.parse(ctx.chainTime)) return ctx;
  return markExpiryIfDue({ ...ctx, chainTime: new Date(ms).toISOString() });
}

/**
 * expires_at has passed on the clock and, when the invoice has a network, on the chain as its
 * watcher processed it: a payment mined in time but not processed yet keeps the invoice open.
 */
export function isExpiryDue(ctx: InvoiceMachineContext): boolean {
  const expires = Date.parse(ctx.expiresAt);
  if (Date.parse(ctx.observedAt) < expires) return false;
  return ctx.chainTime === null || ctx.chainTime === undefined || Date.parse(ctx.chainTime) >= expires;
}

/** Past expires_at on the clock, still open, waiting for the watcher's chain time (the machine's `awaitingChain` tag). */
export function isAwaitingChainTime(ctx: InvoiceMachineContext): boolean {
  return !ctx.expired && !isTerminalInvoiceStatus(ctx.status) && Date.parse(ctx.observedAt) >= Date.parse(ctx.expiresAt) && !isExpiryDue(ctx);
}

/** Expiry's chain half: the watcher has processed the chain up to expires_at (or there is no network). */
export function chainPassedExpiry(ctx: InvoiceMachineContext): boolean {
  return ctx.chainTime === null || ctx.chainTime === undefined || Date.parse(ctx.chainTime) >= Date.parse(ctx.expiresAt);
}

function markExpiryIfDue(ctx: InvoiceMachineContext): InvoiceMachineContext {
  return ctx.expired || !isExpiryDue(ctx) ? ctx : { ...ctx, expired: true };
}

/** Recompute the fields derived from the payments (received_amount, confirmations, tx_hash). The status is the machine's. */
export function settleInvoice(ctx: InvoiceMachineContext): InvoiceMachineContext {
  return { ...ctx, ...summarizePayments(ctx.payments, ctx.requiredConfirmations) };
}

/**
 * The status the context calls for now (the guard of every status edge of the machine). A pending
 * or partially paid invoice that reached its expiry in this step ended by expiring before the
 * step's observation was applied (time comes first): its outcome is that of its confirmed money,
 * even when the observation revived a payment made in time (at rest neither status holds a
 * payment still confirming in time, nor `expired`).
 */
export function derivedStatus(ctx: InvoiceMachineContext): InvoiceStatus {
  if (ctx.expired && (ctx.status === 'pending' || ctx.status === 'partially_paid')) return outcomeOf(confirmedTotal(ctx), ctx);
  return deriveStatus(ctx, { expired: ctx.expired });
}

/**
 * Entering `status` from `ctx.status`: stamp paidAt / endedAt / paidLate, then take the status.
 * An invoice that ends by expiring (it was pending or partially paid when expires_at was reached)
 * ended at expires_at, even when we learn it later or a late payment decides its outcome at once.
 */
export function enterStatus(ctx: InvoiceMachineContext, status: InvoiceStatus): InvoiceMachineContext {
  if (status === ctx.status) return ctx;
  const ended = isTerminalInvoiceStatus(status);
  const endedByExpiry = ctx.expired && (ctx.status === 'pending' || ctx.status === 'partially_paid');
  const endedBy = endedByExpiry ? ctx.expiresAt : ctx.observedAt;
  return {
    ...ctx,
    status,
    paidAt: ctx.paidAt ?? (status === 'paid' || status === 'overpaid' ? ctx.observedAt : null),
    endedAt: ctx.endedAt ?? (ended ? endedBy : null),
    paidLate: ctx.paidLate || (ended && lateMoneyChangedOutcome(ctx)),
  };
}

/**
 * REST rule: the network may change only while pending, unexpired, with nothing received. An
 * invoice past expires_at that waits for its watcher's chain time counts as expired here.
 */
export function canChangeNetwork(ctx: InvoiceMachineContext): boolean {
  return ctx.status === 'pending' && !ctx.expired && Date.parse(ctx.observedAt) < Date.parse(ctx.expiresAt) && ctx.payments.every((p) => p.state === 'reverted');
}

/**
 * REST rule: an invoice may be canceled only while pending, unexpired, with nothing received (the
 * same window as a network change: no money is on its way that the cancel could strand).
 */
export function canCancel(ctx: InvoiceMachineContext): boolean {
  return canChangeNetwork(ctx);
}

/** The cancel is judged on the event's time: a cancel at or after expires_at is refused (the invoice expires instead). */
export function cancelAllowed(ctx: InvoiceMachineContext, event: { readonly at: string }): boolean {
  return canCancel(advanceInvoiceTime(ctx, event.at));
}

/** When the late-payment window closes (null while the invoice has not ended). */
export function lateWindowEndsAt(ctx: InvoiceMachineContext): string | null {
  return ctx.endedAt === null ? null : new Date(Date.parse(ctx.endedAt) + ctx.lateWindowMs).toISOString();
}

export function isLateWindowOver(ctx: InvoiceMachineContext): boolean {
  const end = lateWindowEndsAt(ctx);
  return end !== null && Date.parse(ctx.observedAt) >= Date.parse(end);
}

/**
 * The actor may close (stop watching, release the address): the late-payment window is over and
 * no payment is still confirming (it closes once they are final or reverted).
 */
export function canClose(ctx: InvoiceMachineContext): boolean {
  return isLateWindowOver(ctx) && !ctx.payments.some((p) => p.state === 'confirming');
}

/** Milliseconds from the machine's now until `iso` (0 when due). */
export function msUntil(ctx: InvoiceMachineContext, iso: string | null): number {
  if (iso === null) return 0;
  return Math.max(0, Date.parse(iso) - Date.parse(ctx.observedAt));
}
