import { randomUUID } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { ormConfig } from '../../src/store/orm';
import { accountSum, merchantBalance, postJournal } from '../../src/store/repos/ledger';
import { createTestDatabase, type TestDatabase } from '../support/database';

const BEFORE = 'Migration20261129000000OutboxTxOrder';

/**
 * Migration 20261129140000-treasury on a ledger of the old shape (`chain:<NET>:deposits` +
 * `chain:<NET>:payouts`): today's per-network asset balance becomes the deposits balance, by one
 * journal per network; no old entry is changed or lost, no merchant balance moves.
 */
describe('treasury ledger migration', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  beforeAll(async () => {
    db = await createTestDatabase('cp_treasury_mig');
    orm = await MikroORM.init(ormConfig({ clientUrl: db.url }));
  });
  afterAll(async () => {
    await orm?.close();
    await db?.drop();
  });

  it('folds the payouts account into deposits, keeps every old entry', async () => {
    await orm.getMigrator().up({ to: BEFORE });
    const m = randomUUID();
    const book = (ref: string, lines: { account: string; amount: string }[]) => orm.em.fork().transactional((em) => postJournal(em, ref, 'test', lines, new Date()));
    await book('invoice:a:settle', [
      { account: 'chain:TRC20:deposits', amount: '-100' },
      { account: `merchant:${m}:available`, amount: '98.5' },
      { account: 'network:TRC20:fees', amount: '1.5' },
    ]);
    await book('withdrawal:w:hold', [
      { account: `merchant:${m}:available`, amount: '-10.5' },
      { account: `merchant:${m}:held`, amount: '10.5' },
    ]);
    await book('withdrawal:w:payout', [
      { account: `merchant:${m}:held`, amount: '-10.5' },
      { account: 'chain:TRC20:payouts', amount: '9.5' },
      { account: 'network:TRC20:fees', amount: '1' },
    ]);
    await book('invoice:b:settle', [
      { account: 'chain:BEP20:deposits', amount: '-50' },
      { account: `merchant:${m}:available`, amount: '50' },
    ]);
    const em = () => orm.em.fork();
    const [{ n: entriesBefore }] = await em().execute<{ n: string }[]>('select count(*)::text as n from ledger_entries');
    const balanceBefore = await merchantBalance(em(), m);

    await orm.getMigrator().up();

    expect(await accountSum(em(), 'chain:TRC20:deposits')).toBe('-90.5');
    expect(await accountSum(em(), 'chain:TRC20:payouts')).toBe('0');
    expect(await accountSum(em(), 'chain:BEP20:deposits')).toBe('-50'); // no payouts: no journal
    expect(await accountSum(em(), 'network:TRC20:fees')).toBe('2.5');
    expect(await merchantBalance(em(), m)).toEqual(balanceBefore);
    const old = await em().execute<{ n: string }[]>(`select count(*)::text as n from ledger_entries e join journals j on j.id = e.journal_id where j.kind <> 'ledger_split'`);
    expect(old[0]!.n).toBe(entriesBefore);
    const split = await em().execute<{ reference: string; n: string }[]>(
      `select j.reference, count(*)::text as n from journals j join ledger_entries e on e.journal_id = j.id where j.kind = 'ledger_split' group by j.reference`,
    );
    expect(split).toEqual([{ reference: 'ledger-split:TRC20', n: '2' }]);
    // Every journal still balances.
    const unbalanced = await em().execute<{ n: string }[]>(`select count(*)::text as n from (select journal_id from ledger_entries group by journal_id having sum(amount) <> 0) x`);
    expect(unbalanced[0]!.n).toBe('0');
    const [{ n: sweeps }] = await em().execute<{ n: string }[]>(`select count(*)::text as n from information_schema.tables where table_name = 'sweeps'`);
    expect(sweeps).toBe('1');
  });
});
