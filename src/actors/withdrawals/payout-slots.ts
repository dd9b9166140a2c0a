import type { RequestLoad } from '../../lib/request-load';

/**
 * At most `limit` payout steps (sign, broadcast, status check) run at a time in one daemon, and only
 * one while merchant requests that write are in flight (RequestLoad); the rest wait their turn in
 * arrival order. A burst of 1,000 new withdrawals then does not become 1,000 simultaneous signing
 * transactions and RPC calls: the requests that created them keep the database pool and the CPU
 * (bench scenario 6: each payout step is a signing or a chain call plus a transaction), and the
 * chain's RPC endpoint sees a bounded number of calls. When the requests are done, the waiting
 * steps start at once up to `limit`.
 */
export class PayoutSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    readonly limit: number,
    private readonly load?: RequestLoad,
  ) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`payout slots must be a positive integer, got ${limit}`);
    load?.onIdle(() => this.widen());
  }

  async run<T>(step: () => Promise<T>): Promise<T> {
    if (this.running < this.allowed() && this.waiting.length === 0) this.running++;
    else {
      const turn = new Promise<void>((resolve) => this.waiting.push(resolve));
      this.widen();
      await turn;
    }
    try {
      return await step();
    } finally {
      // The slot passes straight to the next waiter (running stays the same) or is freed.
      const next = this.running <= this.allowed() ? this.waiting.shift() : undefined;
      if (next) next();
      else this.running--;
    }
  }

  /** Steps waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  private allowed(): number {
    return this.load ? this.load.allowance(this.limit) : this.limit;
  }

  /** Start waiting steps while slots are free (the requests in flight are done). */
  private widen(): void {
    while (this.waiting.length > 0 && this.running < this.allowed()) {
      this.running++;
      this.waiting.shift()!();
    }
  }
}
