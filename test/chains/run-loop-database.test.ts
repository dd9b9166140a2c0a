import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { classifySinkError, StoreUnavailableError } from '../../src/actors/watchers/sink-errors';
import { isRetryable } from '../../src/chains/sync/retry-rule';
import { RunLoop } from '../../src/chains/sync/run-loop';
import { openDatabase } from '../../src/store/orm';
import { createTestDatabase, type TestDatabase } from '../support/database';

let db: TestDatabase;
let orm: MikroORM;

beforeAll(async () => {
  db = await createTestDatabase('cp_runloop');
  orm = await openDatabase({ clientUrl: db.url });
});

afterAll(async () => {
  await orm?.close(true);
  await db?.drop();
});

async function until(cond: () => boolean, what: string, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The sink's database, really taken away and brought back: the run loop's rule on what the driver throws. */
describe('RunLoop over a real database', () => {
  it('the database away (sessions killed, no new connections) is retried with backoff, and the loop goes on once it is back', async () => {
    const quiet = jest.spyOn(console, 'log').mockImplementation(() => undefined); // knex reports each killed connection
    const errors: Error[] = [];
    const loop = new RunLoop({
      step: async () => {
        await orm.em.fork().getConnection().execute('select 1');
        return true;
      },
      idle: () => new Promise((r) => setTimeout(r, 5)),
      backoff: { initialMs: 5, maxMs: 40 },
      onError: (e) => errors.push(e),
    });
    const name = new URL(db.url).pathname.slice(1);
    const admin = new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL });
    await admin.connect();
    try {
      await until(() => loop.stats().steps > 0, 'a first step');
      await admin.query(`alter database ${name} allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      await until(() => loop.stats().retries >= 3, 'retries while the database is away');
      expect(loop.stats().state).toBe('running');
    } finally {
      await admin.query(`alter database ${name} allow_connections true`);
      await admin.end();
    }
    const stepsBefore = loop.stats().steps;
    await until(() => loop.stats().steps > stepsBefore && loop.stats().consecutiveFailures === 0, 'steps again once it is back');
    await loop.stop();
    quiet.mockRestore();
    expect(loop.stats()).toMatchObject({ state: 'stopped', consecutiveFailures: 0 });
    expect(errors.length).toBe(loop.stats().retries);
    // What the driver threw while the database was away, by class.
    expect(Object.keys(loop.stats().errors).length).toBeGreaterThan(0);
  });

  it('a wrong statement is no transient failure: the loop stops (the watcher halts)', async () => {
    const errors: Error[] = [];
    const loop = new RunLoop({
      step: async () => {
        await orm.em.fork().getConnection().execute('select * from no_such_table');
        return true;
      },
      idle: () => Promise.resolve(),
      backoff: { initialMs: 5, maxMs: 40 },
      onError: (e) => errors.push(e),
    });
    await until(() => loop.stats().state === 'failed', 'the loop to stop');
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual(['42P01']); // undefined_table
    expect(loop.stats()).toMatchObject({ retries: 0, errors: { DatabaseError: 1 } });
    await loop.stop();
  });
});

/** pg reports a connection cut mid-query as a bare Error: the watcher's sink boundary asks the database. */
describe("the watcher's sink boundary (classifySinkError)", () => {
  it('a bare error while the database does not answer becomes StoreUnavailableError (retried); while it answers, the error stands (fatal)', async () => {
    const bare = new Error('Connection terminated unexpectedly');
    expect(isRetryable(bare)).toBe(false);
    expect(await classifySinkError(bare, orm)).toBe(bare);
    const quiet = jest.spyOn(console, 'log').mockImplementation(() => undefined);
    const name = new URL(db.url).pathname.slice(1);
    const admin = new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`alter database ${name} allow_connections false`);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
      const mapped = await classifySinkError(bare, orm);
      expect(mapped).toBeInstanceOf(StoreUnavailableError);
      expect(isRetryable(mapped)).toBe(true);
      expect((mapped as Error).cause).toBe(bare);
    } finally {
      await admin.query(`alter database ${name} allow_connections true`);
      await admin.end();
      quiet.mockRestore();
    }
  });
});
