/**
 * Merchant requests that write (invoice and withdrawal creation) in flight in this daemon. The
 * merchant waits for their answer; the work they start (payout steps) is asynchronous by contract.
 * Background work asks `allowance(limit)` how many units may run at once: all of them when no
 * request is in flight, one while any is (never none, so it always progresses). Listeners added
 * with `onIdle` run when the last request in flight finishes, so background work widens at once.
 */
export class RequestLoad {
  private inFlight = 0;
  private readonly idleListeners = new Set<() => void>();

  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** Runs `request`, counted as in flight until it settles. */
  async around<T>(request: () => Promise<T>): Promise<T> {
    this.inFlight++;
    try {
      return await request();
    } finally {
      if (--this.inFlight === 0) for (const listener of this.idleListeners) listener();
    }
  }

  /** Units of background work allowed at once out of `limit`. */
  allowance(limit: number): number {
    return this.inFlight > 0 ? Math.min(1, limit) : limit;
  }

  /** Returns the unsubscribe. */
  onIdle(listener: () => void): () => void {
    this.idleListeners.add(listener);
    return () => this.idleListeners.delete(listener);
  }
}
