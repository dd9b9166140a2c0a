import { TonAdapterError } from './errors';

/**
 * A toncenter call failed for a reason of the provider, not of the request: worth the same call
 * again after a backoff. Mapped once, at the RPC boundary (client.ts), from the HTTP status; callers
 * branch on these classes, never on a message.
 */
export abstract class TonProviderTransientError extends TonAdapterError {
  /** The watch's run loop retries it with backoff (sync/retry-rule.ts). */
  readonly retryable = true;
}

/** 429: above the provider's rate (toncenter: 1 call/s without an API key). */
export class TonRateLimitedError extends TonProviderTransientError {
  override readonly name = 'TonRateLimitedError';
  readonly code = 'ton_rate_limited';
  constructor(method: string, attempts: number, cause: unknown) {
    super(`TON provider refused ${method} above its rate (429) after ${attempts} attempt(s): lower TON_RPS or set TON_API_KEY`, { method, attempts, status: 429 }, { cause });
  }
}

/** 5xx or no answer at all (connection refused/reset, timeout): the provider or its node is down or behind. */
export class TonProviderUnavailableError extends TonProviderTransientError {
  override readonly name = 'TonProviderUnavailableError';
  readonly code = 'ton_provider_unavailable';
  constructor(method: string, attempts: number, status: number | null, cause: unknown) {
    super(`TON provider did not serve ${method} (${status === null ? 'no answer' : `HTTP ${status}`}) after ${attempts} attempt(s)`, { method, attempts, status }, { cause });
  }
}

/** The HTTP outcome of a failed TonClient call (it throws axios errors): status, or null when nothing answered; undefined when it is no HTTP failure. */
export function httpStatusOf(error: unknown): number | null | undefined {
  if (typeof error !== 'object' || error === null || (error as { isAxiosError?: unknown }).isAxiosError !== true) return undefined;
  const status = (error as { response?: { status?: unknown } }).response?.status;
  return typeof status === 'number' ? status : null;
}

/**
 * Whether a failed call may be made again. Reads: on 429, any 5xx, no answer. sendBoc: on 429,
 * 502-504 and no answer only (an external message is idempotent: its wallet runs it at most once),
 * never on 500, which is the node refusing the message: the payout's status check decides then.
 */
export function retryable(method: string, status: number | null): boolean {
  if (status === null || status === 429) return true;
  if (method === 'sendBoc') return status === 502 || status === 503 || status === 504;
  return status >= 500 && status <= 599;
}

/** The class a transient failure is reported as once retries are spent. */
export function transientError(method: string, attempts: number, status: number | null, cause: unknown): TonProviderTransientError {
  return status === 429 ? new TonRateLimitedError(method, attempts, cause) : new TonProviderUnavailableError(method, attempts, status, cause);
}
