import { MikroORM } from '@mikro-orm/postgresql';
import { MIGRATIONS } from '../../src/store/migrations';
import { ormConfig, openDatabase } from '../../src/store/orm';
import { createTestDatabase, type TestDatabase } from '../support/database';

describe('migrations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('cp_migr');
  });
  afterAll(async () => {
    await db.drop();
  });

  it('apply to an empty database, twice without change, and leave nothing for the entities to add', async () => {
    const orm = await openDatabase({ clientUrl: db.url });
    const applied = await orm.getMigrator().getExecutedMigrations();
    expect(applied.map((m) => m.name)).toEqual([
      'Migration20261121000000Initial',
      'Migration20261122000000AddressAllocation',
      'Migration20261122120000WatcherFinalBlock',
      'Migration20261125000000OutboxPendingOrder',
      'Migration20261126000000WithdrawalCapHours',
      'Migration20261127000000DevnetChains',
      'Migration20261127100000OutboxUnaddressed',
      'Migration20261128000000InvoiceSnapshotChainTime',
      'Migration20261128010000WatcherCursorJson',
      'Migration20261128020000PayoutBook',
      'Migration20261128030000SeenDeposits',
      'Migration20261128080000CheckoutSettings',
      'Migration20261128100000RequireSignedTimestamp',
      'Migration20261129000000OutboxTxOrder',
      'Migration20261129100000ExpiredPayoutWatch',
      'Migration20261129110000WithdrawalMemo',
      'Migration20261129120000SharedIndexSpace',
      'Migration20261129130000InvoiceMemoMatch',
      'Migration20261129140000Treasury',
      'Migration20261129150000DashboardUsers',
      'Migration20261129160000Refunds',
    ]);
    expect(await orm.getMigrator().getPendingMigrations()).toEqual([]);
    await orm.close();

    const again = await openDatabase({ clientUrl: db.url });
    expect((await again.getMigrator().getExecutedMigrations()).length).toBe(MIGRATIONS.length);
    // The committed migration and the entity definitions describe the same schema.
    const diff = await again.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false });
    expect(diff.trim()).toBe('');
    await again.close();
  });

  it('ORM config refuses the global entity manager (one fork per unit of work)', async () => {
    const orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
    let error: unknown = null;
    try {
      await orm.em.find('Merchant', {});
    } catch (e) {
      error = e;
    }
    expect(String(error)).toMatch(/global EntityManager/);
    await orm.close();
  });
});
