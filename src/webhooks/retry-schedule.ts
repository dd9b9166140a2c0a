/**
 * Delays before each retry, on the daemon clock: after attempt 1 fails wait 5 s, after attempt 2
 * 5 min, ... After attempt 8 (the 7th retry) fails, the event is `failed` (redeliverable).
 */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 5 * 60_000, 30 * 60_000, 2 * 3_600_000, 5 * 3_600_000, 10 * 3_600_000, 10 * 3_600_000];

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Delay after the `attemptsMade`-th failed attempt of the current round, or null: give up. */
export function retryDelayMs(attemptsMade: number): number | null {
  return RETRY_DELAYS_MS[attemptsMade - 1] ?? null;
}
