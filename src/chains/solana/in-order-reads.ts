/**
 * Reads of `keys` with up to `width` in flight, handed out in key order: several getBlock round
 * trips overlap (a mainnet block is ~3 MB; one at a time, latency alone can exceed the 400 ms slot
 * time) while the watch still processes slots strictly in order. A read that fails is thrown when
 * its turn comes, not before; reads still in flight when the consumer stops are left to finish
 * and are dropped (their failures too).
 */
export class InOrderReads<K, T> {
  private readonly inFlight: Promise<T>[] = [];
  private started = 0;

  constructor(
    private readonly keys: readonly K[],
    private readonly read: (key: K) => Promise<T>,
    private readonly width: number,
  ) {}

  /** The next key's result (in key order); starts reads to keep `width` in flight. */
  async next(): Promise<T> {
    while (this.inFlight.length < Math.max(1, this.width) && this.started < this.keys.length) {
      const pending = this.read(this.keys[this.started++]!);
      // Awaited in turn below; until then a rejection must not count as unhandled.
      pending.catch(() => undefined);
      this.inFlight.push(pending);
    }
    const head = this.inFlight.shift();
    if (head === undefined) throw new RangeError('InOrderReads: no key left');
    return head;
  }
}
