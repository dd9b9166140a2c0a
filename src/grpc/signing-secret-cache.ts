import type { SigningSecretSource } from './auth';

type Entry = { value: { merchantId: string; secret: string } | null; until: number };

/**
 * Keeps decrypted signing secrets for a few seconds so a burst of signed calls does not decrypt per
 * call. A rotation on this daemon forgets the old key at once; other daemons drop it within the TTL.
 */
export class SigningSecretCache implements SigningSecretSource {
  private readonly entries = new Map<string, Entry>();
  constructor(
    private readonly load: (apiKey: string) => Promise<{ merchantId: string; secret: string } | null>,
    private readonly ttlMs = 5000,
    private readonly maxEntries = 10_000,
  ) {}

  async signingSecret(apiKey: string): Promise<{ merchantId: string; secret: string } | null> {
    const now = Date.now();
    const hit = this.entries.get(apiKey);
    if (hit && hit.until > now) return hit.value;
    const value = await this.load(apiKey);
    // Unknown keys are not cached: a key created a moment later must work at once.
    if (value) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(apiKey, { value, until: now + this.ttlMs });
    }
    return value;
  }

  forget(apiKey: string): void {
    this.entries.delete(apiKey);
  }
}
