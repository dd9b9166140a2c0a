// Kept copy of the invoice rules as they were before issue 33 (src/domain/invoice-step.ts and invoice-machine.ts at
// 03cc2d8): the reference the equivalence test (src/domain/invoice-machine-equivalence.test.ts) runs the new machine against.

import { formatAmount, toDecimal } from '../../src/domain/decimal';
import type { DepositTarget, InvoiceMachineContext } from '../../src/domain/invoice-context';
import type { InvoiceMachineEvent } from '../../src/domain/invoice-events';
import { isCount, isValidTransfer, paymentKey, recordConfirmations, recordRevert, recordTransfer, summarizePayments } from '../../src/domain/invoice-payment';
import { deriveStatus, isTerminalInvoiceStatus, lateMoneyChangedOutcome } from '../../src/domain/invoice-status';

type TransferSeenEvent = Extract<InvoiceMachineEvent, { type: 'TRANSFER_SEEN' }>;

/** Why the machine does not take a transfer; the host records it as unattributed with this reason. */
export type TransferRefusal = 'invalid_transfer' | 'target_changed' | 'late_window_over';

/**
 * The invoice rules as one pure step: context + event → context. The machine's actions are this
 * function; the state nodes only mirror `status` and own the timers.
 * Order matters: time first (an event at or after expires_at expires the invoice before its
 * payment is applied, so that payment is late), then the observation, then the status.
 * A transfer is in time when the earlier of its block's time and `at` is before expires_at: its
 * block time also moves the chain time (the watcher delivers blocks in order), so a transfer
 * mined after expires_at expires a waiting invoice first and is late.
 */
export function applyInvoiceEvent(ctx: InvoiceMachineContext, event: InvoiceMachineEvent): InvoiceMachineContext {
  const at = event.at ?? ctx.observedAt;
  let next = advanceInvoiceTime(ctx, at);
  const now = next.observedAt;
  switch (event.type) {
    case 'TRANSFER_SEEN': {
      if (transferRefusal(next, event) !== null) break;
      const blockTime = event.payment.blockTime;
      if (typeof blockTime === 'string' && Number.isFinite(Date.parse(blockTime))) {
        next = advanceChainTime(next, new Date(Math.min(Date.parse(blockTime), Date.parse(now))).toISOString());
      }
      const late = next.expired || isTerminalInvoiceStatus(next.status);
      const payments = recordTransfer(next.payments, event.payment, { requiredConfirmations: next.requiredConfirmations, at: now, late });
      next = { ...next, payments };
      break;
    }
    // Known payments are followed to the end, also past the late-payment window: the actor does not
    // close while one is confirming (canClose), so its confirmations are never dropped.
    case 'CONFIRMATIONS':
      if (!isCount(event.confirmations)) break;
      next = { ...next, payments: recordConfirmations(next.payments, event.key, event.confirmations, next.requiredConfirmations) };
      break;
    case 'TRANSFER_REVERTED':
      next = { ...next, payments: recordRevert(next.payments, event.key) };
      break;
    case 'CHAIN_TIME':
      next = advanceChainTime(next, event.chainTime);
      break;
    case 'NETWORK_CHANGED':
      if (!canChangeNetwork(next) || !isCount(event.requiredConfirmations) || !/^\d+(\.\d+)?$/.test(event.payAmount)) return next;
      // Reverted transfers belonged to the old network's address: drop them with it. The new
      // network's chain time is known from now on only.
      next = {
        ...next,
        payAmount: formatAmount(toDecimal(event.payAmount)),
        requiredConfirmations: event.requiredConfirmations,
        payments: [],
        ...(event.target ? { target: event.target, chainTime: now } : {}),
      };
      break;
    case 'RESUME':
      break;
  }
  return settleInvoice(next);
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

function sameTarget(target: DepositTarget, to: DepositTarget): boolean {
  return target.network === to.network && target.address === to.address && (target.memo === null || target.memo === to.memo);
}

/** True when the machine's context holds the live payment `key` (the transfer was taken). */
export function holdsPayment(ctx: InvoiceMachineContext, key: string): boolean {
  return ctx.payments.some((p) => p.key === key && p.state !== 'reverted');
}

/**
 * Move the machine's notion of now forward (never back) and settle: reaching expires_at expires
 * the invoice. Used for events and for timers firing at their due time.
 */
export function advanceInvoiceTime(ctx: InvoiceMachineContext, at: string): InvoiceMachineContext {
  const ms = Date.parse(at);
  if (!Number.isFinite(ms) || ms <= Date.parse(ctx.observedAt)) return ctx;
  return reachExpiry({ ...ctx, observedAt: new Date(ms).toISOString() });
}

/** Move the chain time forward (never back); it may let the invoice expire. No-op without a network. */
export function advanceChainTime(ctx: InvoiceMachineContext, chainTime: string): InvoiceMachineContext {
  if (ctx.chainTime === null || ctx.chainTime === undefined) return ctx;
  const ms = Date.parse(chainTime);
  if (!Number.isFinite(ms) || ms <= Date.parse(ctx.chainTime)) return ctx;
  return reachExpiry({ ...ctx, chainTime: new Date(ms).toISOString() });
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

/** Due on the clock, still waiting for the watcher's chain time (the host sends CHAIN_TIME). */
export function isAwaitingChainTime(ctx: InvoiceMachineContext): boolean {
  return !ctx.expired && !isTerminalInvoiceStatus(ctx.status) && Date.parse(ctx.observedAt) >= Date.parse(ctx.expiresAt) && !isExpiryDue(ctx);
}

function reachExpiry(ctx: InvoiceMachineContext): InvoiceMachineContext {
  return settleInvoice({ ...ctx, expired: ctx.expired || isExpiryDue(ctx) });
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

/**
 * REST rule: the network may change only while pending, unexpired, with nothing received. An
 * invoice past expires_at that waits for its watcher's chain time counts as expired here.
 */
export function canChangeNetwork(ctx: InvoiceMachineContext): boolean {
  return ctx.status === 'pending' && !ctx.expired && Date.parse(ctx.observedAt) < Date.parse(ctx.expiresAt) && ctx.payments.every((p) => p.state === 'reverted');
}

/**
 * Whether the exact time of a transfer's block changes how this invoice judges it, when the block is
 * only known to lie between `earliest` and `latest`: only if expires_at falls in between ("in time"
 * is block time < expires_at; on either side of the interval every time in it gives the same answer).
 */
export function blockTimeMatters(ctx: InvoiceMachineContext, earliest: Date, latest: Date): boolean {
  const expiresAt = Date.parse(ctx.expiresAt);
  return earliest.getTime() < expiresAt && expiresAt <= latest.getTime();
}

/** When the late-payment window closes (null while the invoice has not ended). */
export function lateWindowEndsAt(ctx: InvoiceMachineContext): string | null {
  return ctx.endedAt === null ? null : new Date(Date.parse(ctx.endedAt) + ctx.lateWindowMs).toISOString();
}

/**
 * When the machine's `after` timer in the invoice's current state fires: the expiry while it is
 * open, the end of the late-payment window once it has an outcome (null: no window recorded).
 */
export function timerDueAt(ctx: InvoiceMachineContext): string | null {
  return isTerminalInvoiceStatus(ctx.status) ? lateWindowEndsAt(ctx) : ctx.expiresAt;
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
