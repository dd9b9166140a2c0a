/** The clock and timer DeadlineTimer uses (tests pass their own to move time and count timers). */
export interface DeadlineClock {
  now(): number;
  /** Calls `fire` once after `ms`, without keeping the process alive for it; returns how to cancel. */
  arm(fire: () => void, ms: number): () => void;
}

/** setTimeout holds at most 2^31-1 ms (~24.8 days); a longer wait would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const SYSTEM_CLOCK: DeadlineClock = {
  now: Date.now,
  arm(fire, ms) {
    const timer = setTimeout(fire, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

/**
 * One timer for the deadlines of everything a collection holds in flight (both ends of the relay:
 * src/grpc/relay.ts, gateway/relay-client.ts), instead of a setTimeout and a clearTimeout per call
 * (or a Set of deadlines): those were most of what carrying the deadline cost a relayed call
 * (in-process A/B against the relay without deadlines, docs: performance).
 * The owner keeps its items; it tells the timer each new deadline (`watch`: one comparison), and
 * when the timer fires, `sweep(now)` expires the owner's items that are due and returns the
 * earliest deadline left (Infinity: none), for which the timer is armed again.
 *
 * The timer is armed for the earliest deadline it was told of. Calls with the same timeout arrive
 * in deadline order, so at a steady load a new deadline never re-arms it: it fires about once per
 * timeout, and items that ended before their deadline cost nothing more (the sweep finds them gone).
 *
 * Invariants: `sweep` never runs before the deadline the timer was armed for (by `now()`); a
 * deadline watched is swept at or after its time. The timer does not keep the process alive
 * (unref): whatever waits for the items does.
 */
export class DeadlineTimer {
  #armedFor = Infinity;
  #disarm: (() => void) | null = null;

  constructor(
    private readonly sweep: (now: number) => number,
    private readonly clock: DeadlineClock = SYSTEM_CLOCK,
  ) {}

  /** A new item has this deadline (ms since the epoch; Infinity: none). */
  watch(deadline: number): void {
    if (deadline < this.#armedFor) this.#arm(deadline);
  }

  /** Nothing to watch any more (the owner closed). */
  stop(): void {
    this.#disarm?.();
    this.#disarm = null;
    this.#armedFor = Infinity;
  }

  #arm(at: number): void {
    this.#disarm?.();
    this.#armedFor = at;
    this.#disarm = this.clock.arm(this.#fire, Math.min(Math.max(at - this.clock.now(), 1), MAX_TIMER_MS));
  }

  readonly #fire = (): void => {
    this.#disarm = null;
    this.#armedFor = Infinity;
    const next = this.sweep(this.clock.now());
    // The sweep may have watched new deadlines (armed for them): keep the earlier of the two.
    if (next < this.#armedFor) this.#arm(next);
  };
}
