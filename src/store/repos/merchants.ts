import { randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError } from '../../domain/errors';
import type { SecretBox } from '../../security/secret-box';
import type { SigningSecret } from '../../security/signed-request';
import { Merchant, MerchantBalance } from '../entities';

export interface CreatedMerchant {
  readonly merchant: Merchant;
  readonly apiSecret: string;
  readonly webhookSecret: string;
}

export const newApiKey = (): string => `pk_${randomBytes(16).toString('hex')}`;
export const newApiSecret = (): string => `sk_${randomBytes(32).toString('hex')}`;
/** Standard Webhooks secret format: "whsec_" + base64 of the key bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** Merchants and their secrets. Plain secrets exist only in the creating/rotating call's response. */
export class MerchantsRepo {
  constructor(private readonly box: SecretBox) {}

  async create(em: EntityManager, input: { name: string; webhookUrl: string | null; platformFeePercent: string }, now: Date): Promise<CreatedMerchant> {
    const apiSecret = newApiSecret();
    const webhookSecret = newWebhookSecret();
    const merchant = new Merchant(input.name, newApiKey(), { apiSecretEnc: this.box.seal(apiSecret), webhookSecretEnc: this.box.seal(webhookSecret) }, input.platformFeePercent, now);
    merchant.webhookUrl = input.webhookUrl;
    em.persist(merchant);
    em.persist(new MerchantBalance(merchant.id, now));
    await em.flush();
    return { merchant, apiSecret, webhookSecret };
  }

  async get(em: EntityManager, id: string): Promise<Merchant> {
    const m = /^[0-9a-f-]{36}$/i.test(id) ? await em.findOne(Merchant, { id }) : null;
    if (!m) throw new NotFoundError('merchant', id);
    return m;
  }

  /** get, with the sealed secrets (lazy columns) loaded: for signing a webhook outside the dispatcher (the test ping). */
  async getWithSecrets(em: EntityManager, id: string): Promise<Merchant> {
    const m = /^[0-9a-f-]{36}$/i.test(id) ? await em.findOne(Merchant, { id }, { populate: ['apiSecretEnc', 'webhookSecretEnc'] }) : null;
    if (!m) throw new NotFoundError('merchant', id);
    return m;
  }

  /** The API key and decrypted secret for request verification; null for an unknown key. */
  async signingSecret(em: EntityManager, apiKey: string): Promise<SigningSecret | null> {
    // Read on every cache miss of every signed call (a burst of new merchants misses all at once):
    // one plain statement, no entity to hydrate.
    const rows = await em.execute<{ id: string; api_secret_enc: string; require_signed_timestamp: boolean }[]>('select id, api_secret_enc, require_signed_timestamp from merchants where api_key = ?', [
      apiKey,
    ]);
    const row = rows[0];
    return row ? { merchantId: row.id, secret: this.box.open(row.api_secret_enc), requireTimestamp: row.require_signed_timestamp } : null;
  }

  /** A secret sealed by this repository (the webhook dispatcher reads the sealed columns with its claim). */
  openSecret(sealed: string): string {
    return this.box.open(sealed);
  }

  /** New key and secret; the old pair stops working at once. */
  async rotateSecret(em: EntityManager, merchantId: string, now: Date): Promise<{ apiKey: string; apiSecret: string; previousApiKey: string }> {
    const m = await this.get(em, merchantId);
    const previousApiKey = m.apiKey;
    const apiSecret = newApiSecret();
    m.apiKey = newApiKey();
    m.apiSecretEnc = this.box.seal(apiSecret);
    m.updatedAt = now;
    await em.flush();
    return { apiKey: m.apiKey, apiSecret, previousApiKey };
  }

  async rotateWebhookSecret(em: EntityManager, merchantId: string, now: Date): Promise<string> {
    const m = await this.get(em, merchantId);
    const secret = newWebhookSecret();
    m.webhookSecretEnc = this.box.seal(secret);
    m.updatedAt = now;
    await em.flush();
    return secret;
  }
}
