/**
 * Failed sign-ins counted per email (known or not: the same counter, so a lockout says nothing
 * about whether an account exists) and per client address. `limit` failures within `windowMs`
 * lock the key for `lockMs`; while locked, every attempt is refused before any check, so a
 * correct password learns nothing either. Kept in the daemon's memory: a restart forgets them.
 */
export interface LoginGuardOptions {
  readonly perAccount: number;
  readonly perAddress: number;
  readonly windowMs: number;
  readonly lockMs: number;
}

export const DEFAULT_LOGIN_GUARD: LoginGuardOptions = { perAccount: 5, perAddress: 20, windowMs: 15 * 60_000, lockMs: 15 * 60_000 };
const MAX_KEYS = 100_000;

interface Counter {
  failures: number[];
  lockedUntil: number;
}

export class LoginGuard {
  readonly #counters = new Map<string, Counter>();

  constructor(
    private readonly options: LoginGuardOptions = DEFAULT_LOGIN_GUARD,
    private readonly now: () => number = Date.now,
  ) {}

  /** Ms until the attempt may be made (0: now). */
  waitMs(email: string, address: string): number {
    const t = this.now();
    return Math.max(0, ...[this.#counters.get(`e:${email}`), this.#counters.get(`a:${address}`)].map((c) => (c ? c.lockedUntil - t : 0)));
  }

  fail(email: string, address: string): void {
    this.#count(`e:${email}`, this.options.perAccount);
    this.#count(`a:${address}`, this.options.perAddress);
  }

  /** A success forgets the account's failures (not the address's: one good account must not unlock a sprayer). */
  succeed(email: string): void {
    this.#counters.delete(`e:${email}`);
  }

  #count(key: string, limit: number): void {
    const t = this.now();
    if (this.#counters.size >= MAX_KEYS) this.#prune(t);
    const c = this.#counters.get(key) ?? { failures: [], lockedUntil: 0 };
    c.failures = c.failures.filter((at) => at > t - this.options.windowMs);
    c.failures.push(t);
    if (c.failures.length >= limit) {
      c.lockedUntil = t + this.options.lockMs;
      c.failures = [];
    }
    this.#counters.set(key, c);
  }

  #prune(t: number): void {
    for (const [key, c] of this.#counters) {
      if (c.lockedUntil <= t && c.failures.every((at) => at <= t - this.options.windowMs)) this.#counters.delete(key);
    }
  }
}
