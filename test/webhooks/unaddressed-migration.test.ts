import { randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../src/store/orm';
import { RawSql } from '../../src/store/raw-sql';
import { createTestDatabase, type TestDatabase } from '../support/database';

/** Events failed for want of a URL before `unaddressed` existed become unaddressed; real failures stay failed. */
describe('migration 20261127100000: outbox events failed for want of a URL', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  beforeAll(async () => {
    db = await createTestDatabase('cp_unaddr_migr');
    orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
  });
  afterAll(async () => {
    await orm.close();
    await db.drop();
  });

  it('moves an event whose last attempt was "no webhook URL" to unaddressed and nothing else', async () => {
    await orm.getMigrator().up({ to: 'Migration20261126000000WithdrawalCapHours' });
    const sql = new RawSql(orm);
    const merchant = randomUUID();
    // [status, errors of its attempts in order]
    const cases: [string, (string | null)[]][] = [
      ['failed', ['no webhook URL']], // the old outcome for a polling merchant
      ['failed', ['no webhook URL', 'no webhook URL']], // redelivered without a URL
      ['failed', ['no webhook URL', 'HTTP 500', 'HTTP 500', 'HTTP 500', 'HTTP 500', 'HTTP 500', 'HTTP 500', 'HTTP 500', 'HTTP 500']], // URL set later, then failed for real
      ['failed', ['connect ECONNREFUSED']],
      ['delivered', ['no webhook URL', null]],
      ['pending', []],
    ];
    const ids = cases.map((_, i) => `evt_migr${String(i).padStart(20, '0')}`);
    for (const [i, [status, errors]] of cases.entries()) {
      await sql.query(
        `insert into outbox_events (id, merchant_id, aggregate_type, aggregate_id, type, body, status, attempts, next_attempt_at, created_at)
         values ($1, $2, 'invoice', $3, 'invoice.paid', '{}', $4, $5, now(), now())`,
        [ids[i], merchant, randomUUID(), status, errors.length],
      );
      for (const [n, error] of errors.entries()) {
        await sql.query(`insert into webhook_attempts (event_id, attempt, at, status_code, latency_ms, error) values ($1, $2, now(), $3, 0, $4)`, [ids[i], n + 1, error === null ? 200 : null, error]);
      }
    }
    await orm.getMigrator().up();
    expect(await orm.getMigrator().getPendingMigrations()).toEqual([]);
    const rows = await sql.query<{ id: string; status: string; attempts: number; logged: string }>(
      `select e.id, e.status, e.attempts, (select count(*) from webhook_attempts w where w.event_id = e.id)::text as logged from outbox_events e where e.id = any($1::text[]) order by e.id`,
      [ids],
    );
    expect(rows.map((r) => [r.status, r.attempts, Number(r.logged)])).toEqual([
      ['unaddressed', 1, 1],
      ['unaddressed', 2, 2],
      ['failed', 9, 9],
      ['failed', 1, 1],
      ['delivered', 2, 2],
      ['pending', 0, 0],
    ]);
  });
});
