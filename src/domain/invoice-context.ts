import { formatAmount, toDecimal } from './decimal';
import type { InvoicePayment } from './invoice-payment';
import type { InvoiceStatus } from './invoice-status';

/** Default late-payment window after an invoice ends (DESIGN.md, Late payments). */
export const DEFAULT_LATE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * The invoice actor's context. JSON-serialisable (amounts are decimal strings, times ISO strings)
 * because the persisted snapshot is stored beside the invoice row.
 */
export interface InvoiceMachineContext {
  readonly uuid: string;
  readonly payAmount: string;
  /** 0 only while no network is chosen. */
  readonly requiredConfirmations: number;
  readonly expiresAt: string;
  readonly lateWindowMs: number;
  /** Confirmed money this far below pay_amount still counts as paid. */
  readonly underpaymentTolerance: string;
  readonly status: InvoiceStatus;
  /** In the order first seen (an array, so the order survives a jsonb round trip). */
  readonly payments: readonly InvoicePayment[];
  /** Sum of the non-reverted payments (confirmed or not, late or not). */
  readonly receivedAmount: string;
  readonly confirmations: number;
  /** The first non-reverted payment's hash. */
  readonly txHash: string | null;
  /** When it first became paid or overpaid. */
  readonly paidAt: string | null;
  /** Money seen after the end changed the outcome. */
  readonly paidLate: boolean;
  /** When it reached its first outcome; the late-payment window runs from here. */
  readonly endedAt: string | null;
  /** expires_at has passed (as far as the times the machine was told). */
  readonly expired: boolean;
  /** The latest time the machine knows of: the max of the events' `at` and of timers' due times. */
  readonly observedAt: string;
}

export interface CreateInvoiceContextInput {
  readonly uuid: string;
  readonly payAmount: string;
  readonly requiredConfirmations: number;
  readonly expiresAt: string | Date;
  /** The invoice's created_at (clock time). */
  readonly now: string | Date;
  readonly lateWindowMs?: number;
  readonly underpaymentTolerance?: string;
}

/** The context of a new invoice: pending, nothing received. */
export function createInvoiceContext(input: CreateInvoiceContextInput): InvoiceMachineContext {
  const expiresAt = isoOf(input.expiresAt, 'expiresAt');
  const now = isoOf(input.now, 'now');
  if (Date.parse(expiresAt) <= Date.parse(now)) throw new RangeError('expiresAt must be after now');
  const lateWindowMs = input.lateWindowMs ?? DEFAULT_LATE_WINDOW_MS;
  if (!Number.isSafeInteger(lateWindowMs) || lateWindowMs < 0) throw new RangeError('lateWindowMs must be a non-negative integer');
  if (!Number.isInteger(input.requiredConfirmations) || input.requiredConfirmations < 0) {
    throw new RangeError('requiredConfirmations must be a non-negative integer');
  }
  return {
    uuid: input.uuid,
    payAmount: formatAmount(toDecimal(input.payAmount)),
    requiredConfirmations: input.requiredConfirmations,
    expiresAt,
    lateWindowMs,
    underpaymentTolerance: formatAmount(toDecimal(input.underpaymentTolerance ?? '0')),
    status: 'pending',
    payments: [],
    receivedAmount: '0',
    confirmations: 0,
    txHash: null,
    paidAt: null,
    paidLate: false,
    endedAt: null,
    expired: false,
    observedAt: now,
  };
}

function isoOf(value: string | Date, name: string): string {
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  if (!Number.isFinite(ms)) throw new RangeError(`${name} is not a valid time`);
  return new Date(ms).toISOString();
}
