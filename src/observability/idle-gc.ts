import type { Logger } from 'pino';

export interface IdleCollectorDeps {
  /** A full garbage collection (V8's `gc`, exposed by --expose-gc). */
  readonly collect: () => void;
  /** Bytes of heap in use now. */
  readonly heapUsed: () => number;
  /** Share of the time the event loop was busy since the previous call, 0..1 (performance.eventLoopUtilization). */
  readonly utilization: () => number;
  readonly logger: Logger;
  /** How often the loop is looked at; default 1 s. */
  readonly intervalMs?: number;
  /** Busy share at or below which a period counts as idle; default 2%. */
  readonly idleUtilization?: number;
  /** Idle periods in a row before collecting; default 3. */
  readonly idlePeriods?: number;
  /** Heap growth since the last collection here that makes one worth it; default 64 MiB. */
  readonly growthBytes?: number;
  /**
   * A collection that took longer than this turns idle collections off for good (a request that
   * arrives meanwhile waits for it; with a much larger heap V8's own incremental GC is the better
   * deal); default 1 s. ~0.2-0.55 s was measured with up to ~100,000 open invoices.
   */
  readonly maxPauseMs?: number;
  /** Monotonic milliseconds (tests inject it); default performance.now. */
  readonly now?: () => number;
}

/**
 * Runs V8's full garbage collection while the daemon is idle, so that its next major GC is less
 * likely to come while it is serving.
 *
 * Why: the daemon's heap is mostly its open invoice actors (~3.1 KiB each), and a major GC marks all
 * of them. With ~100,000 open invoices, one that starts under load did 250-350 ms of marking on the
 * daemon's thread (the concurrent markers get little CPU while the machine is busy), and requests
 * queued behind it for 150-450 ms (benchmark scenarios 1 and 2, GC traces and CPU profiles). The
 * same collection while nothing is happening delays nothing, and its background threads have the
 * cores to themselves. V8 in Chrome collects in idle time for the same reason; Node does not.
 *
 * Invariants: it never collects while the loop was busy in any of the last `idlePeriods` periods
 * (a request that arrives during the collection still waits for it), and only after the heap grew
 * by `growthBytes` since its last collection, so an idle daemon collects once, not every period.
 */
export class IdleCollector {
  private timer: NodeJS.Timeout | null = null;
  private quietPeriods = 0;
  private baseline: number;
  private collections = 0;
  private disabled = false;

  constructor(private readonly deps: IdleCollectorDeps) {
    this.baseline = deps.heapUsed();
  }

  start(): void {
    if (this.timer !== null) return;
    this.deps.utilization(); // starts the first period now
    this.timer = setInterval(() => this.tick(), this.deps.intervalMs ?? 1_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }

  /** How many collections it ran (tests; each one is also logged). */
  get count(): number {
    return this.collections;
  }

  /** One period: collect when the loop was idle for long enough and the heap grew enough. */
  tick(): void {
    if (this.disabled) return;
    if (this.deps.utilization() > (this.deps.idleUtilization ?? 0.02)) {
      this.quietPeriods = 0;
      return;
    }
    if (++this.quietPeriods < (this.deps.idlePeriods ?? 3)) return;
    const before = this.deps.heapUsed();
    if (before - this.baseline < (this.deps.growthBytes ?? 64 * 1024 * 1024)) return;
    const now = this.deps.now ?? (() => performance.now());
    const started = now();
    this.deps.collect();
    const ms = now() - started;
    this.collections++;
    this.quietPeriods = 0;
    this.baseline = this.deps.heapUsed();
    // The collection's own time would otherwise count as busy in the next period.
    this.deps.utilization();
    const fields = { heapBeforeMiB: Math.round(before / 1048576), heapAfterMiB: Math.round(this.baseline / 1048576), ms: Math.round(ms) };
    if (ms > (this.deps.maxPauseMs ?? 1_000)) {
      this.disabled = true;
      this.stop();
      this.deps.logger.warn(fields, 'idle garbage collection took too long: leaving collections to V8 from now on');
      return;
    }
    this.deps.logger.info(fields, 'idle garbage collection');
  }

  /** False once a collection took longer than maxPauseMs. */
  get enabled(): boolean {
    return !this.disabled;
  }
}

type Tuning = Pick<IdleCollectorDeps, 'intervalMs' | 'idleUtilization' | 'idlePeriods' | 'growthBytes' | 'maxPauseMs'>;

/** The collector for this process, or null when V8's `gc` is not exposed (node --expose-gc). */
export function idleCollector(logger: Logger, tuning: Tuning = {}): IdleCollector | null {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (typeof gc !== 'function') return null;
  let last = performance.eventLoopUtilization();
  return new IdleCollector({
    collect: () => gc(),
    heapUsed: () => process.memoryUsage().heapUsed,
    utilization: () => {
      const now = performance.eventLoopUtilization();
      const since = performance.eventLoopUtilization(now, last);
      last = now;
      return since.utilization;
    },
    logger,
    ...tuning,
  });
}
