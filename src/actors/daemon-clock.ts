import type { Clock } from '../domain/clock';

interface Timer {
  readonly due: number;
  readonly fn: (...args: unknown[]) => void;
  handle: NodeJS.Timeout;
}

/**
 * The daemon's one clock: real time plus an offset that only devnet may advance.
 * Timers are kept in virtual time; advancing the clock re-arms them so everything due fires,
 * in due order. Invariant: now() never goes backwards.
 */
export class DaemonClock implements Clock {
  private offsetMs: number;
  private nextId = 1;
  private readonly timers = new Map<number, Timer>();

  constructor(options: { offsetMs?: number; onAdvance?: (offsetMs: number) => void } = {}) {
    this.offsetMs = options.offsetMs ?? 0;
    this.onAdvance = options.onAdvance;
  }

  private readonly onAdvance?: (offsetMs: number) => void;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  offset(): number {
    return this.offsetMs;
  }

  setTimeout(fn: (...args: unknown[]) => void, timeoutMs: number): unknown {
    const id = this.nextId++;
    const due = this.now().getTime() + Math.max(0, timeoutMs);
    const timer: Timer = { due, fn, handle: this.arm(id, due) };
    this.timers.set(id, timer);
    return id;
  }

  clearTimeout(id: unknown): void {
    const timer = this.timers.get(id as number);
    if (!timer) return;
    clearTimeout(timer.handle);
    this.timers.delete(id as number);
  }

  /** Devnet only: move time forward; every timer now due fires in due order. */
  advance(ms: number): Date {
    if (ms < 0) throw new RangeError('the clock cannot go backwards');
    this.offsetMs += ms;
    this.onAdvance?.(this.offsetMs);
    const due = [...this.timers.entries()].sort((a, b) => a[1].due - b[1].due);
    for (const [id, timer] of due) {
      clearTimeout(timer.handle);
      timer.handle = this.arm(id, timer.due);
    }
    return this.now();
  }

  pendingTimers(): number {
    return this.timers.size;
  }

  private arm(id: number, due: number): NodeJS.Timeout {
    // setTimeout caps at 2^31-1 ms; a longer wait re-arms itself when it wakes up.
    const wait = Math.min(Math.max(0, due - this.now().getTime()), 2_147_483_647);
    const handle = setTimeout(() => {
      const timer = this.timers.get(id);
      if (!timer) return;
      if (timer.due > this.now().getTime()) {
        timer.handle = this.arm(id, timer.due);
        return;
      }
      this.timers.delete(id);
      timer.fn();
    }, wait);
    handle.unref?.();
    return handle;
  }
}
