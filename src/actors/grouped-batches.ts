import type { BatchOutcome, Waiting } from './keyed-batches';

/** The inputs of one key taken into a run, in arrival order. */
export interface KeyGroup<In> {
  readonly key: string;
  readonly inputs: readonly In[];
}

/** Runs several keys' groups together (one transaction); answers, per group, one outcome per input, in order. */
export type GroupRunner<In, Out> = (groups: readonly KeyGroup<In>[]) => Promise<readonly (readonly BatchOutcome<Out>[])[]>;

/**
 * Group commit across keys. Like KeyedBatches, a key is in at most one run at a time, and what
 * arrives for it meanwhile waits for the next run (the key's order is kept). Unlike it, one run
 * takes every key that has inputs waiting and none running, up to `maxInputs` inputs in all: for
 * withdrawals, the requests of many merchants that arrive in the same event-loop turn commit in
 * ONE transaction, not one per merchant.
 *
 * Invariants: a key is never in two runs at once; every submitted input is answered exactly once;
 * a flush is scheduled whenever an input waits for a key that is not running.
 */
export class GroupedBatches<In, Out> {
  private readonly waiting = new Map<string, Waiting<In, Out>[]>();
  private readonly running = new Set<string>();
  private flushScheduled = false;

  constructor(
    private readonly runner: GroupRunner<In, Out>,
    private readonly maxInputs: number,
  ) {}

  submit(key: string, input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) queue.push({ input, resolve, reject });
      else this.waiting.set(key, [{ input, resolve, reject }]);
      this.scheduleFlush();
    });
  }

  /** Keys with inputs running or waiting (for tests and introspection). */
  get activeKeys(): number {
    let n = this.running.size;
    for (const key of this.waiting.keys()) if (!this.running.has(key)) n++;
    return n;
  }

  /**
   * The flush waits one event-loop turn: requests that arrived together (one read of the relay
   * stream carries many) reach submit a few microtasks apart, and would otherwise be a run of one
   * followed by a run of the rest.
   */
  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    let groups: { key: string; batch: Waiting<In, Out>[] }[] = [];
    let size = 0;
    for (const [key, queue] of this.waiting) {
      if (this.running.has(key)) continue;
      if (size > 0 && size + queue.length > this.maxInputs) {
        void this.run(groups);
        groups = [];
        size = 0;
      }
      const batch = queue.splice(0, this.maxInputs);
      if (queue.length === 0) this.waiting.delete(key);
      this.running.add(key);
      groups.push({ key, batch });
      size += batch.length;
    }
    if (groups.length > 0) void this.run(groups);
  }

  private async run(groups: readonly { key: string; batch: Waiting<In, Out>[] }[]): Promise<void> {
    try {
      const outcomes = await this.runner(groups.map((g) => ({ key: g.key, inputs: g.batch.map((w) => w.input) })));
      groups.forEach((g, k) =>
        g.batch.forEach((w, i) => {
          const o = outcomes[k]?.[i];
          if (!o) w.reject(new Error('group runner answered fewer outcomes than inputs'));
          else if (o.ok) w.resolve(o.value);
          else w.reject(o.error);
        }),
      );
    } catch (err) {
      for (const g of groups) for (const w of g.batch) w.reject(err);
    } finally {
      for (const g of groups) this.running.delete(g.key);
      if (this.waiting.size > 0) this.scheduleFlush();
    }
  }
}
