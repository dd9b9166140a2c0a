import { randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../src/store/orm';
import { RawSql, type Query } from '../../src/store/raw-sql';
import { readUnderLock } from '../../src/actors/withdrawals/creation-sql';
import { toDecimal } from '../../src/domain/decimal';
import { createTestDatabase, type TestDatabase } from '../support/database';

/**
 * The rolling daily cap's sum from hourly sums (migration 20261126000000-withdrawal-cap-hours)
 * against the plain definition it replaced: every withdrawal of the merchant created after `since`
 * that is not rejected or failed. Rows straddle hour boundaries, the window's start falls on, just
 * before and just after rows and hours, and statuses change after the rows were summed.
 */
const HOUR = 3_600_000;
const T0 = Date.parse('2026-11-20T00:00:00.000Z');
const MERCHANTS = [randomUUID(), randomUUID(), randomUUID()];
const STATUSES = ['review', 'processing', 'completed', 'rejected', 'failed'] as const;

interface Row {
  uuid: string;
  merchantId: string;
  amount: string;
  createdAt: Date;
  status: string;
}

/** A deterministic spread of rows over ~30 hours, several on exact hour boundaries. */
function makeRows(count: number, seed: number): Row[] {
  let x = seed;
  const next = (): number => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x;
  };
  return Array.from({ length: count }, (_, i) => {
    const onBoundary = i % 7 === 0;
    const at = onBoundary ? T0 + (next() % 30) * HOUR : T0 + (next() % (30 * HOUR));
    return {
      uuid: randomUUID(),
      merchantId: MERCHANTS[next() % MERCHANTS.length]!,
      amount: `${1 + (next() % 500)}.${String(next() % 1_000_000).padStart(6, '0')}`,
      createdAt: new Date(at),
      status: i % 5 === 0 ? 'processing' : 'review',
    };
  });
}

/** One INSERT statement of all `rows` (as the creating transaction inserts its batch). */
async function insertRows(q: Query, rows: readonly Row[]): Promise<void> {
  await q(
    `insert into withdrawals (uuid, merchant_id, status, network, address, amount, network_fee, net_payout, created_at, updated_at, open, confirmations, version)
     select w.uuid, w.merchant_id, w.status, 'TRC20', 'T-address', w.amount, 1, w.amount - 1, w.created_at, w.created_at, true, 0, 1
       from unnest($1::uuid[], $2::uuid[], $3::text[], $4::numeric[], $5::timestamptz[]) as w(uuid, merchant_id, status, amount, created_at)`,
    [rows.map((r) => r.uuid), rows.map((r) => r.merchantId), rows.map((r) => r.status), rows.map((r) => r.amount), rows.map((r) => r.createdAt.toISOString())],
  );
}

/** The definition: the sum the cap used to read row by row. */
async function bruteForce(q: Query, merchantId: string, since: Date): Promise<string> {
  const [row] = await q<{ used: string }>(
    `select coalesce(sum(amount), 0)::text as used from withdrawals where merchant_id = $1 and created_at > $2::timestamptz and status not in ('rejected', 'failed')`,
    [merchantId, since.toISOString()],
  );
  return row!.used;
}

/** Window starts that probe every case: on hours, a millisecond around them, exactly at rows, around rows. */
function windowStarts(rows: readonly Row[]): Date[] {
  const starts = new Set<number>();
  for (let h = -2; h <= 32; h++) for (const d of [-1, 0, 1, HOUR / 2]) starts.add(T0 + h * HOUR + d);
  for (const r of rows.slice(0, 60)) for (const d of [-1, 0, 1]) starts.add(r.createdAt.getTime() + d);
  return [...starts].map((t) => new Date(t));
}

async function expectSameAsDefinition(q: Query, rows: readonly Row[]): Promise<number> {
  let compared = 0;
  for (const since of windowStarts(rows)) {
    const states = await readUnderLock(q, MERCHANTS, since, []);
    for (const merchantId of MERCHANTS) {
      const expected = await bruteForce(q, merchantId, since);
      // Both are PostgreSQL numerics printed as text: compare the numbers, not the trailing zeros.
      const used = toDecimal(states.get(merchantId)!.used).toFixed();
      expect({ since: since.toISOString(), merchantId, used }).toEqual({ since: since.toISOString(), merchantId, used: toDecimal(expected).toFixed() });
      compared++;
    }
  }
  return compared;
}

async function hourSums(q: Query): Promise<Map<string, string>> {
  const rows = await q<{ key: string; used: string }>(
    `select merchant_id::text || ' ' || to_char(hour at time zone 'UTC', 'YYYY-MM-DD"T"HH24') as key, used::text as used from withdrawal_cap_hours where used <> 0`,
  );
  return new Map(rows.map((r) => [r.key, toDecimal(r.used).toFixed()]));
}

async function hourSumsByDefinition(q: Query): Promise<Map<string, string>> {
  const rows = await q<{ key: string; used: string }>(
    `select merchant_id::text || ' ' || to_char(date_trunc('hour', created_at, 'UTC') at time zone 'UTC', 'YYYY-MM-DD"T"HH24') as key, sum(amount)::text as used
       from withdrawals group by merchant_id, date_trunc('hour', created_at, 'UTC')`,
  );
  return new Map(rows.map((r) => [r.key, toDecimal(r.used).toFixed()]));
}

describe('rolling daily cap from hourly sums', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  let sql: RawSql;
  beforeAll(async () => {
    db = await createTestDatabase('cp_capwin');
    orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
    sql = new RawSql(orm);
  });
  afterAll(async () => {
    await orm.close();
    await db.drop();
  });

  it('fills the hourly sums from the withdrawals already stored when the migration runs', async () => {
    await orm.getMigrator().up({ to: 'Migration20261125000000OutboxPendingOrder' });
    const before = makeRows(120, 7);
    before.forEach((r, i) => (r.status = STATUSES[i % STATUSES.length]!));
    await insertRows(sql.query, before);
    await orm.getMigrator().up();
    expect((await orm.getMigrator().getPendingMigrations()).length).toBe(0);

    const sums = await hourSums(sql.query);
    expect(sums.size).toBeGreaterThan(20);
    expect(sums).toEqual(await hourSumsByDefinition(sql.query));
    expect(await expectSameAsDefinition(sql.query, before)).toBeGreaterThan(300);
  });

  it('stays equal to the definition through batch inserts, refusals, failures and deletes', async () => {
    const rows = makeRows(400, 11);
    // Batches as the creating transaction writes them: one statement each, several merchants and hours.
    for (let i = 0; i < rows.length; i += 90) await insertRows(sql.query, rows.slice(i, i + 90));
    expect(await hourSums(sql.query)).toEqual(await hourSumsByDefinition(sql.query));

    // Statuses change without touching the hourly sums; the read subtracts the refused ones.
    const refused = rows.filter((_, i) => i % 3 === 0);
    await sql.query(`update withdrawals set status = case when random() < 0.5 then 'failed' else 'rejected' end where uuid = any($1::uuid[])`, [refused.map((r) => r.uuid)]);
    await sql.query(`update withdrawals set status = 'completed' where uuid = any($1::uuid[])`, [rows.filter((_, i) => i % 3 === 1).map((r) => r.uuid)]);
    expect(await expectSameAsDefinition(sql.query, rows)).toBeGreaterThan(300);

    // Nothing deletes withdrawals, but a delete keeps the sums exact too.
    await sql.query('delete from withdrawals where uuid = any($1::uuid[])', [rows.filter((_, i) => i % 10 === 5).map((r) => r.uuid)]);
    expect(await hourSums(sql.query)).toEqual(await hourSumsByDefinition(sql.query));
    expect(await expectSameAsDefinition(sql.query, rows)).toBeGreaterThan(300);
  });

  it('refuses to change what the sums are made of, and a truncate empties them', async () => {
    const [row] = await sql.query<{ uuid: string }>('select uuid::text from withdrawals limit 1');
    for (const change of [`amount = amount + 1`, `created_at = created_at + interval '1 hour'`, `merchant_id = '${randomUUID()}'`]) {
      const err = await sql.query(`update withdrawals set ${change} where uuid = $1`, [row!.uuid]).then(
        () => null,
        (e: unknown) => e as { code?: string; message: string },
      );
      expect(err).toMatchObject({ code: '55000', message: expect.stringContaining('never change') });
    }
    // The same values written again (an ORM flush of the whole row) are not a change.
    await sql.query('update withdrawals set amount = amount, created_at = created_at, merchant_id = merchant_id, version = version + 1 where uuid = $1', [row!.uuid]);
    expect(await hourSums(sql.query)).toEqual(await hourSumsByDefinition(sql.query));

    await sql.query('truncate withdrawals');
    const [left] = await sql.query<{ n: string }>('select count(*)::text as n from withdrawal_cap_hours');
    expect(left!.n).toBe('0');
    const states = await readUnderLock(sql.query, MERCHANTS, new Date(T0), []);
    for (const merchantId of MERCHANTS) expect(states.get(merchantId)!.used).toBe('0');
  });
});
