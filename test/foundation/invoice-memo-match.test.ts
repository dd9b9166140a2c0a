import { MikroORM } from '@mikro-orm/postgresql';
import { MIGRATIONS } from '../../src/store/migrations';
import { ormConfig } from '../../src/store/orm';
import { invoiceByMemo } from '../../src/store/repos/deposits';
import { createTestDatabase, type TestDatabase } from '../support/database';

const MERCHANT = '11111111-1111-4111-8111-111111111111';
const id = (n: number): string => `b0000000-0000-4000-8000-00000000000${n}`;

describe('migration 20261129130000-invoice-memo-match and the memo lookup', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('cp_migr_memo_match');
  });
  afterAll(async () => {
    await db.drop();
  });

  it('indexes rows written before (any case, case-only twins), and matches a memo as the buyer typed it', async () => {
    const orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
    try {
      const mine = MIGRATIONS.findIndex((m) => m.name === 'Migration20261129130000InvoiceMemoMatch');
      await orm.getMigrator().up({ to: MIGRATIONS[mine - 1]!.name });
      const conn = orm.em.fork().getConnection();
      const insert = (n: number, network: string | null, memo: string | null) =>
        conn.execute(
          `insert into invoices (uuid, merchant_id, status, amount, platform_fee, network_fee, pay_amount, merchant_net, fee_payer, network, memo, metadata_json, expires_at, created_at, updated_at)
           values (?, ?, 'pending', 10, 0, 0, 10, 10, 'merchant', ?, ?, '{}', now(), now(), now())`,
          [id(n), MERCHANT, network, memo],
        );
      // Old shapes: an issued upper-case memo, case-only twins (the exact unique key allowed them),
      // a row without a memo, the same memo on another network.
      await insert(1, 'TON', 'K7PQ2MZX9A');
      await insert(2, 'TON', 'twin5abcde');
      await insert(3, 'TON', 'TWIN5ABCDE');
      await insert(4, 'TON', 'Twin5Abcde');
      await insert(5, 'TON', null);
      await insert(6, 'TRC20', 'R4ND0MNETW');

      await orm.getMigrator().up();
      const indexes = await conn.execute<{ indexdef: string }[]>(`select indexdef from pg_indexes where indexname = 'invoices_network_memo_upper_index'`);
      expect(indexes[0]?.indexdef).toMatch(/upper\(\(memo\)::text\)/);

      const em = orm.em.fork();
      // Case, surrounding whitespace, full-width forms and zero-width characters as wallets and chats produce them.
      for (const typed of ['K7PQ2MZX9A', 'k7pq2mzx9a', 'K7pq2MzX9a', '  k7pq2mzx9a\n', '\u200bK7PQ2MZX9A\ufeff', 'Ｋ７ＰＱ２ＭＺＸ９Ａ']) {
        expect(await invoiceByMemo(em, 'TON', typed)).toBe(id(1));
      }
      // Another network's memo, a look-alike of another script, blanks: no invoice.
      expect(await invoiceByMemo(em, 'TON', 'r4nd0mnetw')).toBeNull();
      expect(await invoiceByMemo(em, 'TON', 'К7PQ2MZX9A')).toBeNull(); // Cyrillic К
      expect(await invoiceByMemo(em, 'TON', '   ')).toBeNull();
      // Case-only twins: the exact spelling wins; any other spelling is ambiguous and names none.
      expect(await invoiceByMemo(em, 'TON', 'twin5abcde')).toBe(id(2));
      expect(await invoiceByMemo(em, 'TON', ' TWIN5ABCDE ')).toBe(id(3));
      expect(await invoiceByMemo(em, 'TON', 'tWIN5ABCDE')).toBeNull();

      // The lookup is served by the index, not a scan of every invoice.
      await conn.execute('set enable_seqscan = off');
      const plan = await conn.execute<Record<string, string>[]>(`explain select uuid, memo from invoices where network = 'TON' and upper(memo) = 'K7PQ2MZX9A'`);
      expect(plan.map((r) => Object.values(r)[0]).join('\n')).toMatch(/invoices_network_memo_upper_index/);
    } finally {
      await orm.close();
    }
  });
});
