import type { RecentPrioritizationFees } from '@solana/web3.js';

/** Micro-lamports per compute unit a payout pays on top of the signature fee, and how it is chosen. */
export interface PriorityFeePolicy {
  /** SOLANA_MIN_PRIORITY_FEE: the price paid when recent fees say nothing (they mostly say 0). */
  readonly floor: number;
  /** SOLANA_MAX_PRIORITY_FEE: never more, whatever recent fees say. */
  readonly cap: number;
}

/** The percentile of the recent per-slot fees a payout matches. */
export const PRIORITY_FEE_PERCENTILE = 0.75;

/**
 * The compute-unit price of a payout, from getRecentPrioritizationFees asked with the accounts the
 * token program writes (our token account and the payee's): per slot of the node's cache (~150),
 * the lowest price that landed a transaction writing them. That is 0 in most slots (nothing else
 * writes those accounts, and the block's own minimum is 0 outside congestion), so the figure alone
 * would send most payouts at 0 and leave them last in a busy leader's queue: the 75th percentile
 * over the slots, at least `floor` (what a payout pays in any case: ~6,000 lamports at 100,000
 * micro-lamports and 60,000 units), at most `cap`.
 */
export function priorityFee(recent: readonly RecentPrioritizationFees[], policy: PriorityFeePolicy): bigint {
  const fees = recent.map((f) => f.prioritizationFee).sort((a, b) => a - b);
  const pick = fees.length === 0 ? 0 : fees[Math.min(fees.length - 1, Math.floor(fees.length * PRIORITY_FEE_PERCENTILE))]!;
  return BigInt(Math.min(policy.cap, Math.max(policy.floor, Math.ceil(pick))));
}
