/**
 * The provider's call budget: at most `rps` calls reach the provider in any window of `windowMs`
 * (toncenter counts calls per second per key or IP; without a key 1 call/s).
 *
 * The provider counts arrivals, which we do not see: a call arrives somewhere between our sending it
 * and its answer, and an event loop busy after a send can bring two arrivals closer together than
 * their sends were. So a call holds its slot from its start until `windowMs` after its ANSWER: a
 * next call in that slot starts after the previous one's answer + the window, hence arrives at
 * least a window after it, whatever the network or the event loop did. A sliding window, not a
 * token bucket (a bucket lets a burst of `rps` follow a full second of `rps`, which such a provider
 * answers with 429). Calls are granted in the order they asked (one queue), so no caller starves.
 */
export const WINDOW_MS = 1000;

interface Slot {
  /** When the call was answered (or failed); +Infinity while it is in flight. */
  end: number;
}

export class CallBudget {
  private readonly slots: Slot[] = [];
  private queue: Promise<unknown> = Promise.resolve();
  /** Wakes a grant waiting for an in-flight call to end. */
  private wake: (() => void) | null = null;

  constructor(
    readonly rps: number,
    private readonly windowMs: number = WINDOW_MS,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(rps) || rps < 1) throw new RangeError(`calls per second must be a positive integer, got ${rps}`);
  }

  /** Resolves when one more call may start, with the function to call once it is answered or failed. */
  take(): Promise<() => void> {
    const turn = this.queue.then(() => this.grant());
    this.queue = turn;
    return turn;
  }

  private async grant(): Promise<() => void> {
    for (;;) {
      const now = this.now();
      for (let i = this.slots.length - 1; i >= 0; i--) if (this.slots[i]!.end + this.windowMs <= now) this.slots.splice(i, 1);
      if (this.slots.length < this.rps) {
        const slot: Slot = { end: Number.POSITIVE_INFINITY };
        this.slots.push(slot);
        return () => {
          if (slot.end === Number.POSITIVE_INFINITY) slot.end = this.now();
          this.wake?.();
        };
      }
      const freeAt = Math.min(...this.slots.map((s) => s.end + this.windowMs));
      await new Promise<void>((resolve) => {
        const timer = Number.isFinite(freeAt) ? setTimeout(resolve, Math.max(1, freeAt - now)) : null;
        this.wake = () => {
          if (timer !== null) clearTimeout(timer);
          this.wake = null;
          resolve();
        };
      });
    }
  }
}
