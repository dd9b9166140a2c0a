import { formatAmount, toDecimal } from './decimal';
import type { InvoicePayment } from './invoice-payment';
import type { InvoiceStatus } from './invoice-statuses';

/**
 * Where an invoice takes payments: its network, the normalized deposit address and, on memo
 * networks, the memo. A transfer to anything else is not this invoice's (the host records it as
 * unattributed): a transfer matched before a network change must not count on the new network.
 */
export interface DepositTarget {
  readonly network: string;
  /** As the chain adapter's normalizeAddress() returns it (what watchers report). */
  readonly address: string;
  readonly memo: string | null;
}

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
  /**
   * Chain time of the invoice's network as its watcher reported it: every block stamped before it
   * has been processed. The invoice expires only once both observedAt and chainTime reached
   * expires_at, so a paused, lagging or halted watcher keeps its invoices waiting. null: no
   * network, nothing to wait for. Absent in snapshots written before it existed (treated as null).
   */
  readonly chainTime?: string | null;
  /**
   * Set by a network change (the only way a transfer matched to this invoice can stop being its
   * own): then a transfer to another network, address or memo is not taken. Absent before: no check.
   */
  readonly target?: DepositTarget;
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
  /** The network when chosen at creation: its chain time starts at `now` (expiry waits for it). */
  readonly network?: string | null;
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
    // Nothing on chain before the invoice existed can concern its expiry.
    chainTime: input.network ? now : null,
  };
}

function isoOf(value: string | Date, name: string): string {
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  if (!Number.isFinite(ms)) throw new RangeError(`${name} is not a valid time`);
  return new Date(ms).toISOString();
}
