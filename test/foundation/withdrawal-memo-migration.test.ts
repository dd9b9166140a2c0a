import { randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../src/store/orm';
import { RawSql } from '../../src/store/raw-sql';
import { readPayoutRow } from '../../src/store/repos/payout-rows';
import { createTestDatabase, type TestDatabase } from '../support/database';

const BEFORE = 'Migration20261129000000OutboxTxOrder';

/**
 * Migration 20261129110000-withdrawal-memo on a database holding withdrawals and whitelist entries of
 * the old shape: both gain a nullable `memo`, every existing row null (no payout carries a comment it
 * did not have); down drops both columns and keeps the rows.
 */
describe('withdrawal memo migration', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  beforeAll(async () => {
    db = await createTestDatabase('cp_wdmemo');
    orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
  });

  const columns = async (): Promise<string[]> =>
    (
      await orm.em
        .fork()
        .execute<{ t: string }[]>(
          `select table_name || '.' || column_name as t from information_schema.columns where column_name = 'memo' and table_name in ('withdrawals', 'withdrawal_whitelist') order by 1`,
        )
    ).map((r) => r.t);

  it('adds a null memo to existing withdrawals and whitelist entries; down removes it', async () => {
    await orm.getMigrator().up({ to: BEFORE });
    expect(await columns()).toEqual([]);
    const uuid = randomUUID();
    const merchant = randomUUID();
    await orm.em.fork().execute(
      `insert into withdrawals (uuid, merchant_id, status, network, address, amount, network_fee, net_payout, open, created_at, updated_at)
         values (?, ?, 'processing', 'TON', 'UQAAAA', 10, 0.2, 9.8, true, now(), now())`,
      [uuid, merchant],
    );
    await orm.em.fork().execute(`insert into withdrawal_whitelist (merchant_id, network, address, added_at, usable_at) values (?, 'TON', 'UQAAAA', now(), now())`, [merchant]);

    await orm.getMigrator().up();
    expect(await columns()).toEqual(['withdrawal_whitelist.memo', 'withdrawals.memo']);
    expect(await readPayoutRow(new RawSql(orm).query, uuid)).toMatchObject({ status: 'processing', memo: null, payout: null });
    const [entry] = await orm.em.fork().execute<{ memo: string | null }[]>('select memo from withdrawal_whitelist where merchant_id = ?', [merchant]);
    expect(entry).toEqual({ memo: null });

    await orm.getMigrator().down({ to: BEFORE });
    expect(await columns()).toEqual([]);
    const [row] = await orm.em.fork().execute<{ n: string }[]>('select count(*)::text as n from withdrawals where uuid = ?', [uuid]);
    expect(row!.n).toBe('1');
  });
});
