import type { RunLoopStats } from '../../chains/sync/run-loop';

/** Figures of a network's run loops over the daemon's life (counters for the metrics). */
export interface LoopTotalsView {
  readonly steps: number;
  readonly retries: number;
  /** Failed steps by error class. */
  readonly errors: Readonly<Record<string, number>>;
}

/**
 * Sums the run-loop figures of every watch a watcher ran (one per start, resume or rescan), so the
 * counters never go back when a watch is replaced. Invariant: a watch's figures are added once,
 * when it is retired (stopped and dropped), and read live while it runs.
 */
export class LoopTotals {
  private steps = 0;
  private retries = 0;
  private readonly errors = new Map<string, number>();

  retire(stats: RunLoopStats | undefined): void {
    if (stats === undefined) return;
    this.steps += stats.steps;
    this.retries += stats.retries;
    for (const [cls, n] of Object.entries(stats.errors)) this.errors.set(cls, (this.errors.get(cls) ?? 0) + n);
  }

  /** The retired watches' figures plus the running one's. */
  view(live: RunLoopStats | undefined): LoopTotalsView {
    const errors = new Map(this.errors);
    for (const [cls, n] of Object.entries(live?.errors ?? {})) errors.set(cls, (errors.get(cls) ?? 0) + n);
    return { steps: this.steps + (live?.steps ?? 0), retries: this.retries + (live?.retries ?? 0), errors: Object.fromEntries(errors) };
  }
}
