/**
 * The pace of an address-pool refill: call `afterAddress()` after each derivation step (one address,
 * or the small range refillPool derives at once: DERIVE_STEP in store/repos/address-pool.ts).
 * Urgent (the pool is nearly empty, or a caller waits for it), it only yields one event-loop turn,
 * so the requests waiting meanwhile run between two steps; otherwise it also waits as long as the
 * step took, so the refill uses about half of the event loop and the requests served meanwhile
 * keep their latency (a refill at full speed took the daemon's core for seconds: the p99 of invoice
 * creation, measured in BENCHMARKS.md scenario 1).
 */
/**
 * The longest pause after one step. A step takes ~0.5–1.5 ms (8 EVM/TRON addresses derived as a
 * range, or one address of another chain); the time measured between two calls also holds the
 * refill's own statements once per chunk (a round trip, not CPU), which must not turn into a long
 * pause.
 */
export const MAX_PAUSE_MS = 5;

export class RefillPace {
  private derivedSince: number;

  constructor(
    private readonly urgent: () => boolean,
    private readonly io: {
      now: () => number;
      sleep: (ms: number) => Promise<void>;
      yieldTurn: () => Promise<void>;
    } = {
      now: () => performance.now(),
      sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
      yieldTurn: () => new Promise((resolve) => setImmediate(resolve)),
    },
  ) {
    this.derivedSince = io.now();
  }

  readonly afterAddress = async (): Promise<void> => {
    const spent = this.io.now() - this.derivedSince;
    if (this.urgent()) await this.io.yieldTurn();
    else await this.io.sleep(Math.min(spent, MAX_PAUSE_MS));
    this.derivedSince = this.io.now();
  };
}
