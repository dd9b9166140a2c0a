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
 * A batch is cut into messages of at most `maxBytes` (by `sizeOf`; an item larger than that goes
 * alone): the receiving end refuses messages over its limit (grpc-js: 4 MiB by default), and 1,000
 * GETs answered in one turn are ~5 MB of invoices.
 *
 * Invariants: items are written in the order they were queued, each exactly once; while a write
 * has not reported `written`, the next batch waits (`flushNow` excepted).
 *
 * Both ends of the relay use this one class (src/grpc/relay.ts, gateway/relay-client.ts): it lives
 * in src/lib, the folder of pure, dependency-free helpers the gateway may import (DESIGN.md, Layout;
 * test/foundation/dependency-direction.test.ts).
 */
export class WriteBatcher<T> {
  #queue: T[] = [];
  #scheduled = false;
  #writing = false;

  /**
   * `write` sends one message and calls `written` once the stream has taken it (or failed it);
   * `sizeOf` is an item's size on the wire, near enough.
   */
  constructor(
    private readonly write: (items: T[], written: () => void) => void,
    private readonly sizeOf: (item: T) => number,
    private readonly maxBytes: number,
  ) {}

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
    // Every message but the last is only handed to the stream (it keeps them in order); the
    // next batch waits for the last one.
    let start = 0;
    let bytes = 0;
    for (let i = 0; i < items.length; i++) {
      const size = this.sizeOf(items[i]!);
      if (i > start && bytes + size > this.maxBytes) {
        this.write(items.slice(start, i), NOTHING);
        start = i;
        bytes = 0;
      }
      bytes += size;
    }
    this.write(start === 0 ? items : items.slice(start), this.#written);
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

const NOTHING = (): void => undefined;
