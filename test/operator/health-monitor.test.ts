import { Client } from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { HealthMonitor } from '../../src/observability/health-monitor';
import { openDatabase } from '../../src/store/orm';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { eventually } from '../support/stack';
import { captureLogger } from '../webhooks/support';

/** The database health's log lines: one per change, and the first answer at start is no change. */
describe('health monitor: database reachability lines', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  beforeAll(async () => {
    db = await createTestDatabase('cp_health');
    orm = await openDatabase({ clientUrl: db.url });
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
  });

  it('logs nothing at the first start; an error when the database goes, "reachable again" once when it is back', async () => {
    const { logger, lines } = captureLogger();
    const reported: string[] = [];
    const monitor = new HealthMonitor({
      orm,
      logger,
      watchers: new Map(),
      intervalMs: 3_600_000,
      probeTimeoutMs: 1_000,
      health: { setStatus: (service: string, s: string) => void (service === '' && reported.push(s)) } as never,
    });
    await monitor.start();
    try {
      expect(monitor.databaseUp()).toBe(true);
      expect(reported).toEqual(['SERVING']);
      expect(lines).toEqual([]); // not "database reachable again" on a first start
      await monitor.check();
      expect(lines).toEqual([]); // nor while it stays up

      // Take the database away: no new connections, the pool's sessions ended.
      const name = new URL(db.url).pathname.slice(1);
      const quiet = jest.spyOn(console, 'log').mockImplementation(() => undefined); // knex reports each killed connection
      const admin = new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL });
      await admin.connect();
      try {
        await admin.query(`alter database ${name} allow_connections false`);
        await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]);
        await eventually(async () => (await monitor.check(), monitor.databaseUp() ? undefined : true), 8_000, 'the probe to fail');
        expect(lines.map((l) => [l.level, l.msg, l.alert])).toEqual([[50, 'database probe failed: health NOT_SERVING', 'database_down']]);
      } finally {
        await admin.query(`alter database ${name} allow_connections true`);
        await admin.end();
      }
      await eventually(async () => (await monitor.check(), monitor.databaseUp() ? true : undefined), 8_000, 'the probe to answer again');
      await monitor.check();
      quiet.mockRestore();
      expect(lines.map((l) => [l.level, l.msg])).toEqual([
        [50, 'database probe failed: health NOT_SERVING'],
        [30, 'database reachable again: serving'],
      ]);
      expect(reported.at(-1)).toBe('SERVING');
    } finally {
      await monitor.stop();
    }
  });
});
