import { DomainError } from '../../domain/errors';

/** At most this many network changes of one invoice at once, then one per REFILL_MS (the checkout page's limit). */
const BURST = 5;
const REFILL_MS = 120_000;
/** Invoices whose changes are counted at most (the least recently changed dropped first). */
const KEPT_MAX = 100_000;

/** 429 `too_many_network_changes` (field `network`, Retry-After). */
export class TooManyNetworkChangesError extends DomainError {
  override readonly name = 'TooManyNetworkChangesError';
  constructor(retryAfterSeconds: number) {
    super('rate_limited', 'too_many_network_changes', 'too many network changes for this invoice', 'network', { retry_after_seconds: retryAfterSeconds });
  }
}

/**
 * The per-invoice limit on network changes, in the daemon so it holds for every caller (the
 * merchant API, the checkout page, the CLI) and for every gateway in front: 5 at once, then one
 * per 2 minutes (the checkout page's 5 per 10 minutes). Soft state: a restart forgets it.
 */
export class NetworkChangeLimit {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  /** Takes one change of `uuid` or throws TooManyNetworkChangesError. */
  take(uuid: string, now = Date.now()): void {
    const kept = this.#buckets.get(uuid);
    const tokens = kept ? Math.min(BURST, kept.tokens + (now - kept.at) / REFILL_MS) : BURST;
    if (tokens < 1) throw new TooManyNetworkChangesError(Math.ceil(((1 - tokens) * REFILL_MS) / 1000));
    this.#buckets.delete(uuid);
    this.#buckets.set(uuid, { tokens: tokens - 1, at: now });
    if (this.#buckets.size > KEPT_MAX) this.#buckets.delete(this.#buckets.keys().next().value as string);
  }

  /** A change that did not happen (refused, failed) gives its token back. */
  refund(uuid: string): void {
    const kept = this.#buckets.get(uuid);
    if (kept) kept.tokens = Math.min(BURST, kept.tokens + 1);
  }
}
