/**
 * TronGrid's budget, enforced (CHAINS.md, "Real providers"): above `rps` calls in any second a key
 * is suspended for `suspendMs`, and every call during the suspension is answered `status` (403 with
 * a JSON body naming the frequency limit, as TronGrid does; 429 and 503 are also seen). Calls are
 * counted per key, refused ones included; calls without a key (the test's buyer: other users of
 * the provider) are not limited.
 */
export interface RateLimitPolicy {
  readonly rps: number;
  readonly suspendMs: number;
  readonly status?: 403 | 429 | 503;
}

export interface Refusal {
  readonly status: number;
  readonly body: string;
}

export class RateLimiter {
  private readonly recent = new Map<string, number[]>();
  private readonly suspendedUntil = new Map<string, number>();
  /** Calls refused (the test counts them). */
  refused = 0;
  /** Suspensions started. */
  suspensions = 0;

  constructor(
    readonly policy: RateLimitPolicy,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Counts one call of `key`; the refusal to answer, or null to serve it. */
  admit(key: string | null): Refusal | null {
    if (key === null) return null;
    const id = key;
    const now = this.now();
    const until = this.suspendedUntil.get(id) ?? 0;
    if (now < until) return this.refuse();
    const times = (this.recent.get(id) ?? []).filter((t) => t > now - 1000);
    times.push(now);
    this.recent.set(id, times);
    if (times.length > this.policy.rps) {
      this.suspendedUntil.set(id, now + this.policy.suspendMs);
      this.suspensions += 1;
      return this.refuse();
    }
    return null;
  }

  private refuse(): Refusal {
    this.refused += 1;
    const status = this.policy.status ?? 403;
    const seconds = Math.ceil(this.policy.suspendMs / 1000);
    const body =
      status === 403
        ? { Error: `The key exceeds the frequency limit(${this.policy.rps}), and the query server is suspended for ${seconds}s` }
        : { Error: status === 429 ? 'Too Many Requests' : 'Service Unavailable' };
    return { status, body: JSON.stringify(body) };
  }
}
