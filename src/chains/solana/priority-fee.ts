import type { RecentPrioritizationFees } from '@solana/web3.js';

/**
 * The compute-unit price (micro-lamports) of a payout: the 75th percentile of the recent
 * prioritization fees paid for the accounts it writes (so it lands in most blocks without
 * overpaying in a spike), at most `max`.
 */
export function priorityFee(recent: readonly RecentPrioritizationFees[], max: number): bigint {
  if (recent.length === 0) return 0n;
  const fees = recent.map((f) => f.prioritizationFee).sort((a, b) => a - b);
  const p75 = fees[Math.min(fees.length - 1, Math.floor(fees.length * 0.75))]!;
  return BigInt(Math.min(max, Math.max(0, Math.ceil(p75))));
}
