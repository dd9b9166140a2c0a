/** The next block range to scan after `tipHeight`, given the chain head. */
export interface RangePlan {
  readonly start: number;
  readonly end: number;
  /**
   * true: every block of the range already has the required confirmations, so only the range's
   * first and last headers are fetched (cheap catch-up). false: the range reaches into the
   * unfinalized window, whose every header is fetched and kept for reorg detection.
   */
  readonly final: boolean;
}

/** `finalCap`: the highest height the chain itself holds irreversible (BlockSource.finalHeight), when it has such a rule. */
export function planRange(tipHeight: number, head: number, confirmations: number, maxRange: number, finalCap = Number.POSITIVE_INFINITY): RangePlan {
  const start = tipHeight + 1;
  const chainFinal = Math.min(head - confirmations + 1, finalCap);
  if (start <= chainFinal) return { start, end: Math.min(start + maxRange - 1, chainFinal), final: true };
  return { start, end: Math.min(start + maxRange - 1, head), final: false };
}

/** The heights whose headers a plan needs. */
export function plannedHeights(plan: RangePlan): number[] {
  if (plan.final) return plan.start === plan.end ? [plan.start] : [plan.start, plan.end];
  return Array.from({ length: plan.end - plan.start + 1 }, (_, i) => plan.start + i);
}
