import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** Event-loop delay of a bench child over a measured window: how long its loop was blocked. */
export interface LoopDelay {
  readonly p99Ms: number;
  readonly maxMs: number;
}

export class LoopDelayProbe {
  private histogram: IntervalHistogram | null = null;

  start(): void {
    this.histogram?.disable();
    this.histogram = monitorEventLoopDelay({ resolution: 5 });
    this.histogram.enable();
  }

  stop(): LoopDelay {
    const h = this.histogram;
    if (!h) return { p99Ms: 0, maxMs: 0 };
    h.disable();
    this.histogram = null;
    return { p99Ms: h.percentile(99) / 1e6, maxMs: h.max / 1e6 };
  }
}
