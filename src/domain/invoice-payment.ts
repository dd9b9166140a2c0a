import { formatAmount, toDecimal } from './decimal';

/** confirming → confirmed (final, never removed) | reverted (gone in a reorg; may be seen again). */
export type InvoicePaymentState = 'confirming' | 'confirmed' | 'reverted';

/** One token transfer to the invoice, as a watcher reports it. */
export interface TransferSeen {
  readonly txHash: string;
  readonly eventIndex: number;
  readonly from: string;
  /** Decimal string in token units. */
  readonly amount: string;
  readonly blockHeight: number;
  readonly confirmations: number;
  /**
   * ISO timestamp of its block: a payment is in time when the earlier of this and the time it is
   * applied is before expires_at. Not kept on the payment (only the observation carries it).
   */
  readonly blockTime?: string;
}

export interface InvoicePayment extends Omit<TransferSeen, 'blockTime'> {
  /** `${txHash}:${eventIndex}`: a payment is counted once per key. */
  readonly key: string;
  readonly state: InvoicePaymentState;
  /** ISO time it was first seen. */
  readonly seenAt: string;
  /** Seen after the invoice ended (expired or reached an outcome): may still move the outcome. */
  readonly late: boolean;
}

export function paymentKey(p: { txHash: string; eventIndex: number }): string {
  return `${p.txHash}:${p.eventIndex}`;
}

const PLAIN_AMOUNT = /^\d+(\.\d+)?$/;

/**
 * A malformed observation must not throw inside the actor (an action that throws stops the actor
 * for good), so the step ignores what fails this check.
 */
export function isValidTransfer(t: TransferSeen): boolean {
  return (
    typeof t.txHash === 'string' && t.txHash.length > 0 && isCount(t.eventIndex) && isCount(t.blockHeight) && isCount(t.confirmations) && typeof t.amount === 'string' && PLAIN_AMOUNT.test(t.amount)
  );
}

export function isCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}

function stateFor(confirmations: number, required: number): InvoicePaymentState {
  return confirmations >= required ? 'confirmed' : 'confirming';
}

/**
 * Record a transfer. A known key is never added twice: a repeat only refreshes confirmations and
 * block height (a reverted one seen again on the new branch comes back); a confirmed one stays
 * confirmed.
 */
export function recordTransfer(payments: readonly InvoicePayment[], t: TransferSeen, ctx: { requiredConfirmations: number; at: string; late: boolean }): InvoicePayment[] {
  const key = paymentKey(t);
  const known = payments.find((p) => p.key === key);
  if (!known) {
    const payment: InvoicePayment = {
      key,
      txHash: t.txHash,
      eventIndex: t.eventIndex,
      from: t.from,
      amount: formatAmount(toDecimal(t.amount)),
      blockHeight: t.blockHeight,
      confirmations: t.confirmations,
      state: stateFor(t.confirmations, ctx.requiredConfirmations),
      seenAt: ctx.at,
      late: ctx.late,
    };
    return [...payments, payment];
  }
  return payments.map((p) => (p.key === key ? withConfirmations({ ...p, blockHeight: t.blockHeight }, t.confirmations, ctx.requiredConfirmations, true) : p));
}

export function recordConfirmations(payments: readonly InvoicePayment[], key: string, confirmations: number, required: number): InvoicePayment[] {
  return payments.map((p) => (p.key === key && p.state !== 'reverted' ? withConfirmations(p, confirmations, required, false) : p));
}

/** Only a payment that is not final can be reverted; a confirmed one is never removed. */
export function recordRevert(payments: readonly InvoicePayment[], key: string): InvoicePayment[] {
  return payments.map((p) => (p.key === key && p.state === 'confirming' ? { ...p, state: 'reverted' } : p));
}

function withConfirmations(p: InvoicePayment, confirmations: number, required: number, revive: boolean): InvoicePayment {
  if (p.state === 'confirmed') return { ...p, confirmations: Math.max(p.confirmations, confirmations) };
  if (p.state === 'reverted' && !revive) return p;
  return { ...p, confirmations, state: stateFor(confirmations, required) };
}

/** Invoice fields derived from its payments (received_amount, confirmations, tx_hash). */
export function summarizePayments(payments: readonly InvoicePayment[], required: number): { receivedAmount: string; confirmations: number; txHash: string | null } {
  const live = payments.filter((p) => p.state !== 'reverted');
  const receivedAmount = formatAmount(live.reduce((sum, p) => sum.plus(toDecimal(p.amount)), toDecimal('0')));
  const waiting = live.filter((p) => p.state === 'confirming');
  const latest = live[live.length - 1];
  const confirmations = waiting.length ? Math.min(...waiting.map((p) => p.confirmations)) : latest ? Math.min(latest.confirmations, required) : 0;
  return { receivedAmount, confirmations, txHash: live[0]?.txHash ?? null };
}
