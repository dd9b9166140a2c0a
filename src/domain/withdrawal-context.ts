import { formatAmount, toDecimal } from './decimal';
import { DomainError } from './errors';

/** DESIGN.md "Withdrawal statuses". */
export const WITHDRAWAL_STATUSES = ['review', 'processing', 'completed', 'rejected', 'failed'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];
/** A refund may also end `canceled` (by the merchant, in review: before any payout); a withdrawal never does. */
export type PayoutStatus = WithdrawalStatus | 'canceled';

/** Same shape as chains/types.ts SignedPayout (the domain does not import chains). */
export interface WithdrawalSignedPayout {
  readonly txHash: string;
  readonly raw: string;
  readonly meta: Record<string, string | number>;
  readonly wallet?: string;
  readonly sequence?: number;
}

/**
 * Same shape as chains/types.ts PayoutStatus, plus the clock time of the poll. `payout`: the signed
 * transaction as it now stands on the row when it is not the one the actor holds (a fee bump
 * replaced it); `txHash`: the version that was mined or reverted when it is not the newest.
 */
export type CheckPayoutOutput = (
  | { readonly state: 'unknown' }
  | { readonly state: 'pending' }
  | { readonly state: 'mined'; readonly blockHeight: number; readonly confirmations: number }
  | { readonly state: 'reverted'; readonly blockHeight: number }
  /** The signed transaction can never execute (its expiry passed on the chain): sign it anew. */
  | { readonly state: 'expired' }
) & { readonly at: string; readonly payout?: WithdrawalSignedPayout; readonly txHash?: string };

/** What the actor keeps after a status check: the newest signed version, and the hash that counts. */
export function checkedPayout(context: WithdrawalMachineContext, output: CheckPayoutOutput): { signed: WithdrawalSignedPayout | null; txHash: string | null } {
  const signed = output.payout ?? context.signed;
  return { signed, txHash: output.txHash ?? signed?.txHash ?? context.txHash };
}

/** Input of the signPayout actor; {id, to, amount} is chains' PayoutRequest. */
export interface SignPayoutInput {
  readonly id: string;
  readonly network: string;
  readonly to: string;
  /** net_payout, decimal string in token units. */
  readonly amount: string;
  /**
   * The hash of a stored transaction that expired (CheckPayoutOutput `expired`): sign anew, but only
   * while the row still holds that very transaction. Absent: the first signing (or its re-run).
   */
  readonly replacing?: string;
}

/** Input of the broadcastPayout and checkPayout actors. */
export interface PayoutActorInput {
  readonly id: string;
  readonly network: string;
  readonly payout: WithdrawalSignedPayout;
}

/** JSON-serialisable: persisted with the withdrawal row. */
export interface WithdrawalMachineContext {
  readonly uuid: string;
  readonly status: PayoutStatus;
  readonly network: string;
  readonly address: string;
  readonly netPayout: string;
  readonly requiredConfirmations: number;
  /** Wait between payout status polls, and before retrying a transient failure. */
  readonly pollIntervalMs: number;
  /** Kept from signing on: a crash never signs anew, it rebroadcasts this. */
  readonly signed: WithdrawalSignedPayout | null;
  readonly txHash: string | null;
  readonly confirmations: number;
  readonly rejectionReason: string | null;
  readonly completedAt: string | null;
  readonly failureReason: string | null;
  /**
   * Set while the withdrawal waits for an operator (state processing.needsOperator), e.g.
   * `payout_nonce_consumed`: still processing, the amount still held. Absent in older snapshots.
   */
  readonly attention?: string | null;
  /**
   * Set while a payout whose signed transaction expired is signed anew (state processing.signing
   * entered from a status check): that transaction's hash. Absent in older snapshots.
   */
  readonly replacing?: string | null;
}

export interface CreateWithdrawalContextInput {
  readonly uuid: string;
  readonly network: string;
  readonly address: string;
  readonly netPayout: string;
  readonly requiredConfirmations: number;
  /** Above the merchant's auto-payout caps: held for an operator. */
  readonly review: boolean;
  readonly pollIntervalMs?: number;
}

export const DEFAULT_POLL_INTERVAL_MS = 5_000;

export function createWithdrawalContext(input: CreateWithdrawalContextInput): WithdrawalMachineContext {
  const pollIntervalMs = input.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
  if (!Number.isSafeInteger(pollIntervalMs) || pollIntervalMs <= 0) throw new RangeError('pollIntervalMs must be a positive integer');
  if (!Number.isInteger(input.requiredConfirmations) || input.requiredConfirmations < 1) throw new RangeError('requiredConfirmations must be >= 1');
  return {
    uuid: input.uuid,
    status: input.review ? 'review' : 'processing',
    network: input.network,
    address: input.address,
    netPayout: formatAmount(toDecimal(input.netPayout)),
    requiredConfirmations: input.requiredConfirmations,
    pollIntervalMs,
    signed: null,
    txHash: null,
    confirmations: 0,
    rejectionReason: null,
    completedAt: null,
    failureReason: null,
    attention: null,
  };
}

/**
 * A payout step failed for good only when the host says so with a DomainError that is not
 * `unavailable` (e.g. the node rejected the transaction as invalid). Anything else (timeouts,
 * RPC down, unknown errors) is retried: the transaction may already be out, so funds are never
 * released on a guess.
 */
export function isPermanentPayoutError(error: unknown): boolean {
  return error instanceof DomainError && error.kind !== 'unavailable';
}

/**
 * Payout failures that do not prove where the money is, so they never fail the withdrawal: the
 * hot wallet's nonce was used, but by which transaction is only what one RPC node says (a lagging
 * or pruned node may not know ours though it was mined). The withdrawal stays processing, its
 * amount held, and waits for an operator (README, "Payouts that need an operator").
 */
export const NEEDS_OPERATOR_CODES: readonly string[] = ['payout_nonce_consumed'];

/**
 * A broadcast refused because the transaction's expiry passed (chains' PAYOUT_EXPIRED_CODE, mapped
 * to an `unavailable` DomainError by the host): never a failure, never a reason to sign anew by
 * itself; the status check decides once the chain proves the transaction can no longer execute.
 */
export const PAYOUT_EXPIRED = 'payout_expired';

export function payoutExpired(error: unknown): boolean {
  return error instanceof DomainError && error.code === PAYOUT_EXPIRED;
}

/**
 * The hot wallet cannot pay a payout (USDT or the gas coin short; actors/withdrawals/payout-funds.ts):
 * an `unavailable` DomainError with this code. Nothing was signed; the withdrawal waits in
 * processing.fundsWait, its amount held, with `attention` saying what to send where, and is signed
 * once the wallet can pay. Never a failure, whatever the family.
 */
export const AWAITING_FUNDS = 'hot_wallet_underfunded';

export function awaitingFunds(error: unknown): boolean {
  return error instanceof DomainError && error.code === AWAITING_FUNDS;
}

export function needsOperator(error: unknown): boolean {
  return error instanceof DomainError && error.kind !== 'unavailable' && NEEDS_OPERATOR_CODES.includes(error.code);
}

/**
 * failure_reason of a withdrawal whose payout step failed for good: `<code>: <what happened>`. A
 * DomainError's message is the adapter's account of it, built from its structured details in words
 * an operator can act on (e.g. `payout_insufficient_gas: BEP20 hot wallet 0x… has 0 BNB for gas…`).
 */
export function failureText(error: unknown): string {
  if (error instanceof DomainError) return error.message && error.message !== error.code ? `${error.code}: ${error.message}` : error.code;
  return errorText(error);
}

/** failure_reason of a payout that was mined and reverted (the token transfer failed on chain). */
export function revertedText(txHash: string | null, blockHeight: number): string {
  return `reverted_on_chain: payout transaction ${txHash ?? '(unknown)'} reverted in block ${blockHeight}; the amount was released to the merchant's balance`;
}

export function errorText(error: unknown): string {
  if (error instanceof DomainError) return error.code;
  return error instanceof Error ? error.message : String(error);
}
