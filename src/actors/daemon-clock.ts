import type { Clock } from '../domain/clock';

/** A pending timer; the handle setTimeout returns. `index` is its place in the heap, -1 once fired or cleared. */
interface Timer {
  readonly due: number;
  /** Arming order: timers due at the same millisecond fire in the order they were set. */
  readonly seq: number;
  readonly fn: (...args: unknown[]) => void;
  index: number;
}

/** setTimeout caps at 2^31-1 ms; a longer wait wakes up early and waits again. */
const MAX_WAIT_MS = 2_147_483_647;

/**
 * Timers fired per event-loop turn: after an outage or a devnet jump thousands can be due at once,
 * and firing them all in one callback would hold up every request meanwhile.
 */
const FIRE_SLICE = 500;

const earlier = (a: Timer, b: Timer): boolean => a.due < b.due || (a.due === b.due && a.seq < b.seq);

/** A live daemon's clock is real time: nothing may move it (a whitelist cooldown must really pass). */
export class FixedClockError extends Error {
  override readonly name = 'FixedClockError';
  constructor() {
    super('this clock follows real time and cannot be advanced (live mode)');
  }
}

/**
 * The daemon's one clock: real time plus an offset that only devnet may advance.
 *
 * Timers are kept in virtual time in one binary min-heap (due time, then arming order) under ONE
 * Node timer, armed for the earliest. Every open invoice and withdrawal holds a timer (its expiry,
 * its next step), and a Node timer each cost ~430 bytes of heap, ~580 when the durations differ
 * (one Node timer list per duration, as after a restart), against ~90 here (measured, daemon-clock.test.ts); with
 * 100,000 open invoices that was ~15% of the daemon's heap and as many more objects for every
 * major GC to trace.
 *
 * Invariants: now() never goes backwards, but for reset() (devnet only, the operator's explicit
 * `chainpay devnet reset-time`); a timer fires at most once, never before its due time,
 * and never after clearTimeout; timers fire in due order (ties in the order they were set).
 * Advancing the clock re-arms the wake-up, so everything due then fires, in due order.
 */
export class DaemonClock implements Clock {
  private offsetMs: number;
  private seq = 0;
  private readonly heap: Timer[] = [];
  private wake: NodeJS.Timeout | null = null;
  private wakeDue = Infinity;

  /** `fixed`: real time only (live mode): advance() throws, the offset stays 0. */
  constructor(options: { offsetMs?: number; onAdvance?: (offsetMs: number) => void; fixed?: boolean } = {}) {
    this.fixed = options.fixed ?? false;
    this.offsetMs = this.fixed ? 0 : (options.offsetMs ?? 0);
    this.onAdvance = options.onAdvance;
  }

  private readonly onAdvance?: (offsetMs: number) => void;
  private readonly fixed: boolean;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  offset(): number {
    return this.offsetMs;
  }

  setTimeout(fn: (...args: unknown[]) => void, timeoutMs: number): unknown {
    const timer: Timer = { due: Date.now() + this.offsetMs + Math.max(0, timeoutMs), seq: this.seq++, fn, index: this.heap.length };
    this.heap.push(timer);
    this.up(timer.index);
    if (timer.due < this.wakeDue) this.rearm();
    return timer;
  }

  clearTimeout(handle: unknown): void {
    const timer = handle as Timer | null | undefined;
    if (timer === null || typeof timer !== 'object' || !(timer.index >= 0) || this.heap[timer.index] !== timer) return;
    this.removeAt(timer.index);
    // The wake-up may now come early: it then finds nothing due and waits for the next timer.
  }

  /** Devnet only: move time forward; every timer now due fires in due order. */
  advance(ms: number): Date {
    if (this.fixed) throw new FixedClockError();
    if (ms < 0) throw new RangeError('the clock cannot go backwards');
    this.offsetMs += ms;
    this.onAdvance?.(this.offsetMs);
    this.rearm();
    return this.now();
  }

  /**
   * Devnet only: back to real time (offset 0). now() goes back by the old offset; timers keep their
   * due times (virtual time), so what was due while ahead fires that much later in real time, never
   * earlier. Returns the new now().
   */
  reset(): Date {
    if (this.fixed) throw new FixedClockError();
    this.offsetMs = 0;
    this.onAdvance?.(this.offsetMs);
    this.rearm();
    return this.now();
  }

  pendingTimers(): number {
    return this.heap.length;
  }

  /** One Node timer for the earliest due timer (or none). */
  private rearm(): void {
    if (this.wake !== null) clearTimeout(this.wake);
    this.wake = null;
    this.wakeDue = Infinity;
    const first = this.heap[0];
    if (first === undefined) return;
    this.wakeDue = first.due;
    this.wake = setTimeout(() => this.fire(), Math.min(Math.max(0, first.due - (Date.now() + this.offsetMs)), MAX_WAIT_MS));
    this.wake.unref?.();
  }

  private fire(): void {
    this.wake = null;
    this.wakeDue = Infinity;
    try {
      const now = Date.now() + this.offsetMs;
      // A timer set by one of these callbacks waits for a later turn, as a Node timer would.
      const setBefore = this.seq;
      for (let fired = 0; fired < FIRE_SLICE; fired++) {
        const first = this.heap[0];
        if (first === undefined || first.due > now || first.seq >= setBefore) break;
        this.removeAt(0);
        first.fn();
      }
    } finally {
      // Also after a callback threw (the error still reaches the process as a Node timer's would):
      // the timers behind it must not be lost. More due: the next slice on the next turn (wait 0).
      this.rearm();
    }
  }

  private removeAt(index: number): void {
    const heap = this.heap;
    const removed = heap[index]!;
    const last = heap.pop()!;
    removed.index = -1;
    if (last === removed) return;
    heap[index] = last;
    last.index = index;
    if (index > 0 && earlier(last, heap[(index - 1) >> 1]!)) this.up(index);
    else this.down(index);
  }

  private up(index: number): void {
    const heap = this.heap;
    const timer = heap[index]!;
    while (index > 0) {
      const parentIndex = (index - 1) >> 1;
      const parent = heap[parentIndex]!;
      if (!earlier(timer, parent)) break;
      heap[index] = parent;
      parent.index = index;
      index = parentIndex;
    }
    heap[index] = timer;
    timer.index = index;
  }

  private down(index: number): void {
    const heap = this.heap;
    const timer = heap[index]!;
    for (;;) {
      const left = 2 * index + 1;
      if (left >= heap.length) break;
      const right = left + 1;
      const child = right < heap.length && earlier(heap[right]!, heap[left]!) ? right : left;
      if (!earlier(heap[child]!, timer)) break;
      heap[index] = heap[child]!;
      heap[index]!.index = index;
      index = child;
    }
    heap[index] = timer;
    timer.index = index;
  }
}
