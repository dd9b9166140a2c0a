/**
 * Gathers the items one stream is to carry and writes them as one message: everything queued in
 * the same event-loop turn, and everything that became ready while the previous write was under
 * way. It never waits for more than that: the first item of a quiet stream goes out at the end of
 * the turn it was queued in (setImmediate).
 *
 * Why: grpc-js writes one message per socket write and holds the next one back until that write
 * has completed, so items that were ready together went out one system call and one event-loop
 * turn each (RelayService: a writev per call on the gateway and per result on the daemon).
 *
 * Invariants: items are written in the order they were queued, each exactly once; while a write
 * has not reported `written`, the next batch waits (`flushNow` excepted).
 *
 * The daemon's end of the relay has the same class (src/grpc/write-batcher.ts): the gateway imports
 * nothing of the daemon but its generated gRPC client (DESIGN.md, Layout). One test runs against
 * both (src/grpc/write-batcher.test.ts).
 */
export class WriteBatcher<T> {
  #queue: T[] = [];
  #scheduled = false;
  #writing = false;

  /** `write` sends one batch and calls `written` once the stream has taken it (or failed it). */
  constructor(private readonly write: (items: T[], written: () => void) => void) {}

  get queued(): number {
    return this.#queue.length;
  }

  push(item: T): void {
    this.#queue.push(item);
    this.#schedule();
  }

  /** Writes what is queued now, without waiting for a write under way (before ending the stream). */
  flushNow(): void {
    if (this.#queue.length === 0) return;
    const items = this.#queue;
    this.#queue = [];
    this.#writing = true;
    this.write(items, this.#written);
  }

  #schedule(): void {
    if (this.#scheduled || this.#writing) return;
    this.#scheduled = true;
    setImmediate(this.#flush);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    if (!this.#writing) this.flushNow();
  };

  readonly #written = (): void => {
    this.#writing = false;
    if (this.#queue.length > 0) this.#schedule();
  };
}
