/**
 * The provider's call budget: at most `rps` calls start in any window of `windowMs` (toncenter
 * counts calls per second per key or IP; without a key 1 call/s). A sliding window, not a token
 * bucket: a bucket lets a burst of `rps` follow a full second of `rps`, which such a provider
 * answers with 429. The window is a little longer than a second (WINDOW_MS) because the provider
 * counts arrivals, which network jitter can bring closer together than our starts were.
 * Calls are granted in the order they asked (one queue), so no caller starves.
 */
export const WINDOW_MS = 1100;

export class CallBudget {
  /** Start times of the granted calls still inside the window, oldest first. */
  private readonly starts: number[] = [];
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly rps: number,
    private readonly windowMs: number = WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(rps) || rps < 1) throw new RangeError(`calls per second must be a positive integer, got ${rps}`);
  }

  /** Resolves when one more call may start. */
  take(): Promise<void> {
    const turn = this.queue.then(() => this.grant());
    this.queue = turn;
    return turn;
  }

  private async grant(): Promise<void> {
    for (;;) {
      const now = this.now();
      while (this.starts.length > 0 && now - this.starts[0]! >= this.windowMs) this.starts.shift();
      if (this.starts.length < this.rps) {
        this.starts.push(now);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, this.starts[0]! + this.windowMs - now));
    }
  }
}
