/** The most calls in any one-second window (sliding, half-open) among `times` (ms, ascending or not). */
export function busiestSecond(times: readonly number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let j = 0;
  for (let i = 0; i < sorted.length; i++) {
    while (sorted[j]! <= sorted[i]! - 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}
