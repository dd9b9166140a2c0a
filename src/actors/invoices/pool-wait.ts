import { UnavailableError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';

/** The pool had no free address inside the transaction: refill outside it, then try again. */
export class PoolEmptyError extends Error {
  override readonly name = 'PoolEmptyError';
  constructor(readonly network: NetworkCode) {
    super('address pool empty');
  }
}

/** Seconds a client is told to wait after a 503 `pool_exhausted` (Retry-After). */
export const POOL_RETRY_AFTER_SECONDS = 5;

/**
 * 503 `pool_exhausted` (with Retry-After): no deposit address of the network came free within the
 * bounded wait. Nothing of the request was written (the insert or the network change never ran).
 */
export class PoolExhaustedError extends UnavailableError {
  constructor(network: NetworkCode, waitedMs: number) {
    super('pool_exhausted', `no deposit address of ${network} is free right now; retry in ${POOL_RETRY_AFTER_SECONDS} s`, {
      network,
      waited_ms: waitedMs,
      retry_after_seconds: POOL_RETRY_AFTER_SECONDS,
    });
  }
}

/** What a wait for an address reports (metrics: src/observability/pool-metrics.ts). */
export interface PoolWaitObserver {
  /** A request found the pool empty and waited `ms`; `got`: an address came free in time (else 503). */
  waited(network: NetworkCode, ms: number, got: boolean): void;
}

export interface PoolWaitDeps {
  /** Derive more addresses now (committed on its own); resolves when that refill is over. */
  readonly refillNow: (network: NetworkCode) => Promise<void>;
  /** How long a request waits for an address at most (then PoolExhaustedError). */
  readonly waitMs: number;
  readonly observer?: PoolWaitObserver;
}

/** Between two tries when a refill gave nothing (halted, or the addresses went to other waiters). */
const RETRY_PAUSE_MS = 50;

/**
 * Runs `attempt` (which throws PoolEmptyError when the network's pool had no address for it, having
 * written nothing) until it gets one or `waitMs` has passed: each empty try asks for a refill and
 * waits for it (concurrent waiters share one refill). Past the wait: PoolExhaustedError (503), so a
 * burst larger than the pool is answered "retry later", never 500.
 */
export async function withPoolWait<T>(network: NetworkCode, deps: PoolWaitDeps, attempt: () => Promise<T>): Promise<T> {
  const started = Date.now();
  let waited = false;
  for (;;) {
    try {
      const result = await attempt();
      if (waited) deps.observer?.waited(network, Date.now() - started, true);
      return result;
    } catch (err) {
      if (!(err instanceof PoolEmptyError)) throw err;
      waited = true;
      const left = deps.waitMs - (Date.now() - started);
      if (left <= 0) {
        deps.observer?.waited(network, Date.now() - started, false);
        throw new PoolExhaustedError(network, Date.now() - started);
      }
      const before = Date.now();
      // A failed refill is the keeper's to log; here it only means no address yet.
      await Promise.race([deps.refillNow(network).catch(() => undefined), sleep(left)]);
      if (Date.now() - before < RETRY_PAUSE_MS) await sleep(Math.min(RETRY_PAUSE_MS, left));
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)).unref());
}
