import type { IncomingMessage } from 'node:http';

/**
 * Optional per-client token bucket in front of `/v1`. It is per gateway process (soft state, lost on
 * restart; N gateways allow N times the rate); the daemon may also answer RESOURCE_EXHAUSTED (429).
 */
export interface RateLimitOptions {
  /** Sustained requests per second per client. */
  readonly ratePerSecond: number;
  /** Requests a client may make at once before the rate applies. */
  readonly burst: number;
  /**
   * Which bucket a request draws from; default the peer address. Not the unverified X-Service-Key,
   * which a client could vary at will.
   */
  readonly key?: (req: IncomingMessage) => string;
  /** Buckets kept at most; the least recently used ones are dropped beyond it. Default 10 000. */
  readonly maxClients?: number;
}

export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterSeconds: number };

interface Bucket {
  tokens: number;
  at: number;
}

export class RateLimiter {
  readonly #buckets = new Map<string, Bucket>();
  readonly #maxClients: number;

  constructor(readonly options: RateLimitOptions) {
    if (!(options.ratePerSecond > 0) || !(options.burst >= 1)) {
      throw new RangeError('rate limit needs ratePerSecond > 0 and burst >= 1');
    }
    this.#maxClients = options.maxClients ?? 10_000;
  }

  keyOf(req: IncomingMessage): string {
    return this.options.key?.(req) ?? req.socket.remoteAddress ?? 'unknown';
  }

  take(key: string, now = Date.now()): RateDecision {
    const { ratePerSecond, burst } = this.options;
    const previous = this.#buckets.get(key);
    const bucket = previous ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) / 1000) * ratePerSecond);
    bucket.at = now;
    // Re-insert so Map order is least-recently-used first.
    this.#buckets.delete(key);
    this.#buckets.set(key, bucket);
    if (this.#buckets.size > this.#maxClients) {
      this.#buckets.delete(this.#buckets.keys().next().value as string);
    }
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerSecond)) };
  }

  /** Gives back the token of a taken request that turned out not to count (e.g. it was refused). */
  refund(key: string): void {
    const bucket = this.#buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.options.burst, bucket.tokens + 1);
  }
}
