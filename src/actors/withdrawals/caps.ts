import { toDecimal } from '../../domain/decimal';

export interface CapsInput {
  readonly amount: string;
  /** The merchant's `cap_per_withdrawal`. */
  readonly perWithdrawal: string;
  /** The merchant's `cap_daily`. */
  readonly daily: string;
  /** Sum of this merchant's withdrawals of the last 24 h (daemon clock) that are not rejected or failed. */
  readonly usedLast24h: string;
}

/** Above either auto-payout cap a withdrawal waits in `review` for an operator; within both it pays out at once. */
export function needsReview(input: CapsInput): boolean {
  const amount = toDecimal(input.amount);
  if (amount.greaterThan(toDecimal(input.perWithdrawal))) return true;
  return toDecimal(input.usedLast24h).plus(amount).greaterThan(toDecimal(input.daily));
}

export const CAP_WINDOW_MS = 24 * 60 * 60 * 1000;
