import { backoffDelay } from '../sync/backoff';
import { TronNodeResponseError, TronNodeUnavailableError } from './errors';

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
}

/** Longest Retry-After honoured per wait; a longer one is capped (the follower's own backoff takes over). */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * POST JSON to a java-tron full node (or TronGrid). HTTP 429 and 5xx are retried with exponential
 * backoff, honouring Retry-After (seconds or an HTTP date); after the last retry the caller gets
 * TronNodeUnavailableError, which the block follower retries again later: a rate limit delays
 * scanning, it never skips a block. The client belongs to one network's adapter, so its waits
 * never hold up another network.
 */
export class TronHttpClient {
  private readonly headers: Record<string, string>;

  constructor(private readonly options: TronHttpOptions) {
    this.headers = { 'content-type': 'application/json', accept: 'application/json', ...(options.apiKey ? { 'TRON-PRO-API-KEY': options.apiKey } : {}) };
  }

  /** `path` like 'wallet/getblockbynum'; the body is sent as JSON. */
  async post<T>(path: string, body: unknown = {}): Promise<T> {
    const retries = this.options.retries ?? 5;
    const { initialMs, maxMs } = this.options.backoff ?? { initialMs: 250, maxMs: 10_000 };
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.once<T>(path, body, attempt);
      if (outcome.ok) return outcome.value;
      if (attempt > retries || this.options.signal?.aborted) throw outcome.error;
      await wait(outcome.retryAfterMs ?? backoffDelay(attempt, initialMs, maxMs), this.options.signal);
    }
  }

  private async once<T>(path: string, body: unknown, attempt: number): Promise<{ ok: true; value: T } | { ok: false; error: Error; retryAfterMs?: number }> {
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
    if (res.status === 429 || res.status >= 500) {
      report(false);
      await res.body?.cancel().catch(() => undefined);
      const retryAfterMs = parseRetryAfter(res.headers.get('retry-after'));
      const reason = res.status === 429 ? 'rate limited (HTTP 429)' : `HTTP ${res.status}`;
      return { ok: false, error: new TronNodeUnavailableError(path, reason, { status: res.status, attempts: attempt }), ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
    }
    const text = await res.text();
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
