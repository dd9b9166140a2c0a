/**
 * The call budget of one provider (TronGrid counts calls per key per second; above ~15/s it
 * suspends the key for ~30 s). A token bucket that holds one token, refilled `rps` times a second:
 * call starts are spaced 1.2/rps apart (SPACING_HEADROOM), so no one-second window ever sees more than `rps` calls, and
 * a burst (catch-up, several payouts at once) queues instead of tripping the provider's limit.
 * `pause()` empties it for a while: after a rate-limit answer nothing of this provider is sent
 * until the suspension is over (every caller waits, not only the one that was refused).
 */
/** Call starts are spaced this much wider than 1/rps (see the constructor). */
export const SPACING_HEADROOM = 1.2;

export class TokenBucket {
  /** When the last call was let go (ms, `now()`'s clock). */
  private last = Number.NEGATIVE_INFINITY;
  /** Nothing starts before this (a suspension). */
  private pausedUntil = 0;
  /** Callers are let go one at a time, in call order. */
  private queue: Promise<void> = Promise.resolve();
  private readonly spacingMs: number;

  constructor(
    rps: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    if (!(rps > 0)) throw new RangeError(`rps must be positive, got ${rps}`);
    // 20% headroom: the provider counts arrivals, and calls let go evenly can arrive bunched (one
    // delayed on the way, the next not): spaced 1.2/rps apart, rps + 1 arrivals in one second need a
    // fifth of a second of uneven delay (CI saw 9 arrivals in a second at exactly 1/8 s spacing).
    this.spacingMs = (1000 / rps) * SPACING_HEADROOM;
  }

  /** Resolves when this call may start; early when `signal` aborts. */
  take(signal?: AbortSignal): Promise<void> {
    const turn = this.queue.then(() => this.turn(signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /** Nothing starts before `ms` from now (a provider's suspension or Retry-After), waiting calls included. */
  pause(ms: number): void {
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  /**
   * Waits until 1/rps after the previous call actually went (a timer firing late shifts the next
   * ones, so no one-second window ever holds more than rps) and no pause is on.
   */
  private async turn(signal?: AbortSignal): Promise<void> {
    for (;;) {
      const now = this.now();
      const at = Math.max(this.last + this.spacingMs, this.pausedUntil);
      if (at <= now || signal?.aborted) {
        this.last = now;
        return;
      }
      await sleep(at - now, signal);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
