import { randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../src/store/orm';
import { createTestDatabase, type TestDatabase } from '../support/database';

const BEFORE = 'Migration20261129110000WithdrawalMemo';

/**
 * Migration 20261129160000-refunds on a database holding a withdrawal of the old shape: it becomes
 * kind 'withdrawal' with no invoice; a refund row must name its invoice and a positive amount (the
 * check constraint); merchants get the refund caps' defaults; down drops it all and keeps the rows.
 */
describe('refunds migration', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  beforeAll(async () => {
    db = await createTestDatabase('cp_refundmig');
    orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
  });

  it('keeps existing withdrawals as withdrawals; refunds must name an invoice; down removes the columns', async () => {
    await orm.getMigrator().up({ to: BEFORE });
    const uuid = randomUUID();
    const merchant = randomUUID();
    const em = () => orm.em.fork();
    await em().execute(
      `insert into withdrawals (uuid, merchant_id, status, network, address, amount, network_fee, net_payout, open, created_at, updated_at)
         values (?, ?, 'processing', 'TRC20', 'T1', 10, 1, 9, true, now(), now())`,
      [uuid, merchant],
    );
    await em().execute(
      `insert into merchants (id, name, api_key, api_secret_enc, webhook_secret_enc, platform_fee_percent, cap_per_withdrawal, cap_daily, underpayment_tolerance, created_at, updated_at)
         values (?, 'm', 'pk_refundmig', 'x', 'x', 0, 1000, 5000, 0, now(), now())`,
      [merchant],
    );

    await orm.getMigrator().up();
    const [row] = await em().execute<{ kind: string; invoice_uuid: string | null; refund_amount: string | null }[]>('select kind, invoice_uuid, refund_amount from withdrawals where uuid = ?', [uuid]);
    expect(row).toEqual({ kind: 'withdrawal', invoice_uuid: null, refund_amount: null });
    const [caps] = await em().execute<{ per: string; daily: string }[]>('select cap_per_refund::float8::text as per, cap_daily_refund::float8::text as daily from merchants where id = ?', [merchant]);
    expect(caps).toEqual({ per: '200', daily: '1000' });
    await expect(em().execute(`update withdrawals set kind = 'refund' where uuid = ?`, [uuid])).rejects.toThrow(/withdrawals_refund_shape/);

    await orm.getMigrator().down({ to: BEFORE });
    const [cols] = await em().execute<{ n: number }[]>(
      `select count(*)::int as n from information_schema.columns where table_name = 'withdrawals' and column_name in ('kind', 'invoice_uuid', 'refund_amount')`,
    );
    expect(cols!.n).toBe(0);
    const [kept] = await em().execute<{ n: number }[]>('select count(*)::int as n from withdrawals where uuid = ?', [uuid]);
    expect(kept!.n).toBe(1);
  });
});
