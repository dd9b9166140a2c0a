import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { startStack, createMerchant, signed, type Stack, type MerchantCredentials } from '../support/stack';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { spawnTs } from '../support/processes';
import { KeyMismatchError, KEY_FINGERPRINTS_KEY } from '../../src/security/key-fingerprints';
import { ConfigError } from '../../src/config/config';

jest.setTimeout(120_000);

/**
 * The database remembers fingerprints of the key material it was set up with; a daemon with other
 * keys (another MASTER_KEY, or a fresh DATA_DIR that generated new ones) refuses to start.
 */
describe('key material must match the database', () => {
  let db: TestDatabase;
  let dataDir: string;
  let merchant: MerchantCredentials;
  const freshDir = (): string => fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-keys-'));
  const countFingerprints = async (): Promise<number> => {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    const r = await c.query(`select count(*)::int as n from system_settings where key = $1`, [KEY_FINGERPRINTS_KEY]);
    await c.end();
    return r.rows[0].n as number;
  };

  beforeAll(async () => {
    db = await createTestDatabase();
    dataDir = freshDir();
    const first = await startStack({ database: db, dataDir });
    merchant = await createMerchant(first);
    await first.stop();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('the first start records the fingerprints (no key material in them)', async () => {
    expect(await countFingerprints()).toBe(1);
    const c = new Client({ connectionString: db.url });
    await c.connect();
    const { rows } = await c.query(`select value from system_settings where key = $1`, [KEY_FINGERPRINTS_KEY]);
    await c.end();
    const master = fs.readFileSync(path.join(dataDir, 'master.key'), 'utf8').trim();
    const stored = JSON.stringify(rows[0].value);
    expect(stored).not.toContain(master);
    expect(Object.keys(rows[0].value).sort()).toEqual(['hdSeed', 'masterKey']);
  });

  it('another MASTER_KEY on the same database is refused, naming MASTER_KEY only', async () => {
    const started = startStack({ database: db, dataDir, env: { MASTER_KEY: randomBytes(32).toString('hex') } });
    await expect(started).rejects.toThrow(KeyMismatchError);
    const err = (await started.catch((e: unknown) => e)) as KeyMismatchError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.mismatched).toEqual(['MASTER_KEY']);
    expect(err.message).toMatch(/MASTER_KEY/);
    expect(err.message).not.toMatch(/HD_MNEMONIC/);
  });

  it('a fresh DATA_DIR on the existing database is refused, naming MASTER_KEY and HD_MNEMONIC', async () => {
    await expect(startStack({ database: db, dataDir: freshDir() })).rejects.toThrow(/MASTER_KEY, HD_MNEMONIC/);
  });

  it('the same keys start (the refusals left no lock behind) and old signatures still verify', async () => {
    const again: Stack = await startStack({ database: db, dataDir });
    try {
      expect((await signed(again, merchant, 'GET', '/v1/balance')).status).toBe(200);
    } finally {
      await again.stop();
    }
  });

  it('the daemon process exits with 78 and a message naming the variables', async () => {
    const p = spawnTs('src/main.ts', { DATABASE_URL: db.url, DATA_DIR: freshDir(), GRPC_PORT: '0', DEVNET_BLOCK_MS: '0' });
    expect(await p.exited()).toBe(78);
    expect(p.output()).toMatch(/invalid configuration: MASTER_KEY, HD_MNEMONIC: .*refusing to start/);
    expect(p.output()).not.toMatch(/gRPC server listening/);
  });

  it('a database set up before fingerprints existed: a master key that cannot open a stored secret is refused', async () => {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    await c.query(`delete from system_settings where key = $1`, [KEY_FINGERPRINTS_KEY]);
    await c.end();
    await expect(startStack({ database: db, dataDir, env: { MASTER_KEY: randomBytes(32).toString('hex') } })).rejects.toThrow(/MASTER_KEY/);
    expect(await countFingerprints()).toBe(0);
    const ok = await startStack({ database: db, dataDir });
    await ok.stop();
    expect(await countFingerprints()).toBe(1);
  });
});
