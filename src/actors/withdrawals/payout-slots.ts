/**
 * At most `limit` payout steps (sign, broadcast, status check) run at a time in one daemon; the
 * rest wait their turn in arrival order. A burst of 1,000 new withdrawals then does not become
 * 1,000 simultaneous signing transactions and RPC calls: the requests that created them keep the
 * database pool and the CPU, and the chain's RPC endpoint sees a bounded number of calls.
 */
export class PayoutSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`payout slots must be a positive integer, got ${limit}`);
  }

  async run<T>(step: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running++;
    try {
      return await step();
    } finally {
      // The slot passes straight to the next waiter (running stays the same) or is freed.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Steps waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }
}
