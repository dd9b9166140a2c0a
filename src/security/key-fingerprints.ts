import { createHash, createHmac } from 'node:crypto';
import { Client } from 'pg';
import { ConfigError } from '../config/config';
import { SecretBox } from './secret-box';

/** system_settings key of the fingerprints of the key material a database was set up with. */
export const KEY_FINGERPRINTS_KEY = 'key_fingerprints';

export interface KeyFingerprints {
  /** HMAC-SHA256 of a constant under the master key: proves the key without revealing it. */
  readonly masterKey: string;
  /** SHA-256 of the (normalised) mnemonic with a domain prefix; the mnemonic has >= 128 bits of entropy. */
  readonly hdSeed: string;
}

export function keyFingerprints(keys: { masterKey: Buffer; mnemonic: string }): KeyFingerprints {
  const words = keys.mnemonic.normalize('NFKD').trim().split(/\s+/).join(' ');
  return {
    masterKey: createHmac('sha256', keys.masterKey).update('chainpay/master-key-fingerprint/v1').digest('hex'),
    hdSeed: createHash('sha256').update('chainpay/hd-seed-fingerprint/v1\n').update(words).digest('hex'),
  };
}

/**
 * The keys given to this daemon are not the ones its database was set up with. Starting anyway would
 * make every stored merchant secret undecryptable (signed calls fail) or derive deposit addresses and
 * hot wallets from another seed (payments to unknown addresses, payouts from an empty wallet).
 * A ConfigError, so the process exits with 78 like any other bad configuration.
 */
export class KeyMismatchError extends ConfigError {
  constructor(readonly mismatched: readonly ('MASTER_KEY' | 'HD_MNEMONIC')[]) {
    super(
      mismatched.join(', '),
      `${mismatched.map((v) => (v === 'MASTER_KEY' ? 'the master key (MASTER_KEY or DATA_DIR/master.key)' : 'the HD seed (HD_MNEMONIC or DATA_DIR/hd-seed.mnemonic)')).join(' and ')} ` +
        'differ from the key material this database was set up with; refusing to start. Give this daemon the original ' +
        `${mismatched.join(' and ')} (or the DATA_DIR that holds them); a fresh DATA_DIR must not be pointed at an existing database`,
    );
  }
}

interface Queryable {
  query<R extends Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: R[] }>;
}

/**
 * Compares the daemon's keys with the fingerprints stored in the database and throws
 * KeyMismatchError on a difference. With `record`, a database without fingerprints gets them (the
 * first start; schema must exist); on a database set up before fingerprints existed, the master key
 * must first open a stored merchant secret. Without `record` (before migrations, e.g. a standby
 * waiting for the engine lock) only an existing record is checked.
 */
export async function verifyKeyFingerprints(db: Queryable, keys: { masterKey: Buffer; mnemonic: string }, options: { record: boolean; now?: Date }): Promise<void> {
  const mine = keyFingerprints(keys);
  const table = await db.query<{ t: string | null }>(`select to_regclass('system_settings')::text as t`);
  if (!table.rows[0]?.t) {
    if (options.record) throw new Error('system_settings is missing: migrations must run before the key check');
    return;
  }
  const read = async (): Promise<KeyFingerprints | null> => {
    const rows = await db.query<{ value: KeyFingerprints }>(`select value from system_settings where key = $1`, [KEY_FINGERPRINTS_KEY]);
    return rows.rows[0]?.value ?? null;
  };
  let stored = await read();
  if (!stored) {
    if (!options.record) return;
    await checkAgainstStoredSecret(db, keys.masterKey);
    await db.query(`insert into system_settings (key, value, updated_at) values ($1, $2, $3) on conflict (key) do nothing`, [KEY_FINGERPRINTS_KEY, JSON.stringify(mine), options.now ?? new Date()]);
    // Two first starts at once: whichever wrote first is the record both compare with.
    stored = await read();
    if (!stored) throw new Error('key fingerprints were not stored');
  }
  const mismatched: ('MASTER_KEY' | 'HD_MNEMONIC')[] = [];
  if (stored.masterKey !== mine.masterKey) mismatched.push('MASTER_KEY');
  if (stored.hdSeed !== mine.hdSeed) mismatched.push('HD_MNEMONIC');
  if (mismatched.length > 0) throw new KeyMismatchError(mismatched);
}

/** A database from before the fingerprints: a merchant secret the master key cannot open means the wrong key. */
async function checkAgainstStoredSecret(db: Queryable, masterKey: Buffer): Promise<void> {
  const rows = await db.query<{ sealed: string }>(`select api_secret_enc as sealed from merchants order by created_at limit 1`).catch(() => ({ rows: [] as { sealed: string }[] }));
  const sealed = rows.rows[0]?.sealed;
  if (!sealed) return;
  try {
    new SecretBox(masterKey).open(sealed);
  } catch {
    throw new KeyMismatchError(['MASTER_KEY']);
  }
}

/** Runs verifyKeyFingerprints on its own short-lived connection. */
export async function verifyKeyFingerprintsAt(databaseUrl: string, keys: { masterKey: Buffer; mnemonic: string }, options: { record: boolean; now?: Date }): Promise<void> {
  const client = new Client({ connectionString: databaseUrl, application_name: 'chainpay-key-check' });
  await client.connect();
  try {
    await verifyKeyFingerprints(client as unknown as Queryable, keys, options);
  } finally {
    await client.end().catch(() => undefined);
  }
}
