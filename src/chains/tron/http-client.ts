import { backoffDelay } from '../sync/backoff';
import { TronNodeResponseError, TronNodeUnavailableError, TronRateLimitedError } from './errors';
import { TokenBucket } from './token-bucket';

export interface TronHttpOptions {
  /** The node's HTTP API base, e.g. https://api.trongrid.io (no trailing slash). */
  readonly baseUrl: string;
  /** TronGrid's key, sent as TRON-PRO-API-KEY. */
  readonly apiKey?: string;
  readonly timeoutMs?: number;
  /** Retries after the first attempt on 429, 5xx and network failures. Default 5. */
  readonly retries?: number;
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Every round trip (path, duration, outcome): metrics. */
  readonly onRequest?: (path: string, ms: number, ok: boolean) => void;
  /** Ends waits early (adapter closed). */
  readonly signal?: AbortSignal;
  /** Calls per second to this provider at most (TRC20_RPS; the token bucket). Default 10. */
  readonly rps?: number;
  /** A 403 "frequency limit" without Retry-After: nothing is sent for this long (TronGrid suspends a key ~30 s). Default 30000. */
  readonly suspensionMs?: number;
}

/** TRC20_RPS default: below TronGrid's ~15 calls/s per key, with room for the payouts' calls. */
export const DEFAULT_RPS = 10;

/** Longest Retry-After honoured per wait; a longer one is capped (the follower's own backoff takes over). */
const MAX_RETRY_AFTER_MS = 60_000;

type Outcome<T> = { ok: true; value: T } | { ok: false; error: Error; retryAfterMs?: number; rateLimited?: boolean };

/**
 * POST JSON to a java-tron full node (or TronGrid), within the provider's budget: every attempt
 * takes a token of the provider's bucket first (TRC20_RPS). A rate-limit answer (429, 503, or
 * TronGrid's 403 "frequency limit" JSON) pauses the whole bucket (Retry-After, else the suspension
 * for a 403, else the backoff) and is retried; other 5xx and network failures are retried with
 * exponential backoff. After the last retry the caller gets TronRateLimitedError or
 * TronNodeUnavailableError, both retried by the block follower later: a budget delays scanning, it
 * never skips a block. The client belongs to one network's adapter, so its waits never hold up
 * another network.
 */
export class TronHttpClient {
  private readonly headers: Record<string, string>;
  readonly bucket: TokenBucket;

  constructor(private readonly options: TronHttpOptions) {
    this.headers = { 'content-type': 'application/json', accept: 'application/json', ...(options.apiKey ? { 'TRON-PRO-API-KEY': options.apiKey } : {}) };
    this.bucket = new TokenBucket(options.rps ?? DEFAULT_RPS);
  }

  /** `path` like 'wallet/getblockbynum'; the body is sent as JSON. */
  async post<T>(path: string, body: unknown = {}): Promise<T> {
    const retries = this.options.retries ?? 5;
    const { initialMs, maxMs } = this.options.backoff ?? { initialMs: 250, maxMs: 10_000 };
    for (let attempt = 1; ; attempt++) {
      await this.bucket.take(this.options.signal);
      const outcome = await this.once<T>(path, body, attempt);
      if (outcome.ok) return outcome.value;
      if (attempt > retries || this.options.signal?.aborted) throw outcome.error;
      const delay = outcome.retryAfterMs ?? backoffDelay(attempt, initialMs, maxMs);
      // A rate limit holds back every call to this provider, not only this one.
      if (outcome.rateLimited) this.bucket.pause(delay);
      else await wait(delay, this.options.signal);
    }
  }

  private async once<T>(path: string, body: unknown, attempt: number): Promise<Outcome<T>> {
    const started = performance.now();
    const report = (ok: boolean): void => this.options.onRequest?.(path, performance.now() - started, ok);
    let res: Response;
    try {
      res = await fetch(`${this.options.baseUrl}/${path}`, {
        method: 'POST',
        headers: this.headers,
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 15_000),
      });
    } catch (cause) {
      report(false);
      return { ok: false, error: new TronNodeUnavailableError(path, cause instanceof Error ? cause.message : String(cause), { attempts: attempt }, { cause }) };
    }
    const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
    const after = retryAfterMs !== undefined ? { retryAfterMs } : {};
    if (res.status === 429 || res.status === 503) {
      report(false);
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, error: new TronRateLimitedError(path, res.status, attempt), rateLimited: true, ...after };
    }
    if (res.status >= 500) {
      report(false);
      await res.body?.cancel().catch(() => undefined);
      return { ok: false, error: new TronNodeUnavailableError(path, `HTTP ${res.status}`, { status: res.status, attempts: attempt }), ...after };
    }
    const text = await res.text();
    if (res.status === 403 && isFrequencyLimit(text)) {
      report(false);
      return { ok: false, error: new TronRateLimitedError(path, 403, attempt), rateLimited: true, retryAfterMs: retryAfterMs ?? this.options.suspensionMs ?? 30_000 };
    }
    if (!res.ok) {
      report(false);
      throw new TronNodeResponseError(path, `HTTP ${res.status}: ${text.slice(0, 200)}`, res.status);
    }
    try {
      const value = JSON.parse(text) as T;
      report(true);
      return { ok: true, value };
    } catch {
      report(false);
      // A proxy's HTML error page with status 200: worth another try.
      return { ok: false, error: new TronNodeUnavailableError(path, 'answer is not JSON', { status: res.status, attempts: attempt }) };
    }
  }
}

/**
 * TronGrid's 403 for a key over its rate, e.g. {"Error":"The key exceeds the frequency limit(15),
 * and the query server is suspended for 30s"}: told apart from a 403 for a bad or missing key
 * (which no retry fixes) by its JSON body. The one place the body's text is read: mapping the
 * answer to an error class at this boundary.
 */
export function isFrequencyLimit(body: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  if (parsed === null || typeof parsed !== 'object') return false;
  return Object.values(parsed).some((v) => typeof v === 'string' && /frequency limit|rate limit|suspended/i.test(v));
}

/** Retry-After as delay-seconds or an HTTP date -> ms (capped); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
