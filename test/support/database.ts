import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { openDatabase } from '../../src/store/orm';

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

function adminUrl(): string {
  const url = process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL;
  if (!url) throw new Error('no PostgreSQL for tests: set DATABASE_URL (jest global setup normally does)');
  return url;
}

/** A fresh, empty database on the test PostgreSQL; each test file gets its own. */
export async function createTestDatabase(prefix = 'cp_test'): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(5).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: adminUrl() });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}

/**
 * A fresh database with chainpay's schema (openDatabase runs the migrations) for the calling
 * describe block: created before its tests, closed and dropped after them. Hooks the block
 * registers later run after the open, so they can seed it. Read `orm` inside tests and hooks.
 */
export function useMigratedDatabase(prefix: string): { readonly orm: MikroORM } {
  let db: TestDatabase | undefined;
  let orm: MikroORM | undefined;
  beforeAll(async () => {
    db = await createTestDatabase(prefix);
    orm = await openDatabase({ clientUrl: db.url });
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
  });
  return {
    get orm(): MikroORM {
      if (!orm) throw new Error('the test database opens in beforeAll: read orm inside a test or hook');
      return orm;
    },
  };
}
