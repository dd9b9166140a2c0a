import type { SigningSecretSource } from './auth';
import type { SigningSecret } from '../security/signed-request';

type Entry = { value: SigningSecret | null; until: number };

/**
 * Keeps decrypted signing secrets for a few seconds so a burst of signed calls does not decrypt per
 * call. A rotation on this daemon forgets the old key at once; other daemons drop it within the TTL.
 * Invariant: a lookup that began before forget(apiKey) never stores its (possibly old) result: each
 * forget() bumps the key's generation, and a result is stored only if the generation it started
 * with is still current.
 */
export class SigningSecretCache implements SigningSecretSource {
  private readonly entries = new Map<string, Entry>();
  /** Generation per forgotten key; cleared whenever no lookup is in flight (nothing holds an old one). */
  private readonly generations = new Map<string, number>();
  /**
   * One load per key at a time: when an entry expires under load, the calls that find it expired
   * share the lookup instead of each reading the row (dropped by forget(): later calls read anew).
   */
  private readonly loading = new Map<string, Promise<SigningSecret | null>>();
  private inFlight = 0;
  constructor(
    private readonly load: (apiKey: string) => Promise<SigningSecret | null>,
    private readonly ttlMs = 5000,
    private readonly maxEntries = 10_000,
  ) {}

  signingSecret(apiKey: string): Promise<SigningSecret | null> {
    const hit = this.entries.get(apiKey);
    if (hit && hit.until > Date.now()) return Promise.resolve(hit.value);
    const shared = this.loading.get(apiKey);
    if (shared) return shared;
    const lookup = this.lookup(apiKey);
    this.loading.set(apiKey, lookup);
    const done = () => {
      if (this.loading.get(apiKey) === lookup) this.loading.delete(apiKey);
    };
    lookup.then(done, done);
    return lookup;
  }

  private async lookup(apiKey: string): Promise<SigningSecret | null> {
    const now = Date.now();
    const generation = this.generations.get(apiKey) ?? 0;
    this.inFlight++;
    let value: SigningSecret | null;
    try {
      value = await this.load(apiKey);
    } finally {
      this.inFlight--;
    }
    // Unknown keys are not cached: a key created a moment later must work at once.
    if (value && (this.generations.get(apiKey) ?? 0) === generation) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(apiKey, { value, until: now + this.ttlMs });
    }
    if (this.inFlight === 0) this.generations.clear();
    return value;
  }

  forget(apiKey: string): void {
    this.entries.delete(apiKey);
    this.loading.delete(apiKey);
    if (this.inFlight > 0) this.generations.set(apiKey, (this.generations.get(apiKey) ?? 0) + 1);
  }
}
