import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { openDatabase } from '../orm';
import { RawSql } from '../raw-sql';
import { postJournals, postJournalsSql, UnbalancedJournalError, type JournalInput } from './ledger';

/**
 * postJournals (EntityManager) and postJournalsSql (raw connection, one statement) share their
 * rules; given the same journals, two databases end up with the same journals, entries and
 * balances, and the same answers.
 */
describe('ledger: the raw-SQL form books what the EntityManager form books', () => {
  let dbs: TestDatabase[] = [];
  let orms: MikroORM[] = [];
  const at = new Date('2026-11-23T10:11:12.345Z');
  const a = randomUUID();
  const b = randomUUID();
  const avail = (m: string) => `merchant:${m}:available`;
  const held = (m: string) => `merchant:${m}:held`;

  beforeAll(async () => {
    dbs = await Promise.all([createTestDatabase('cp_ledger_orm'), createTestDatabase('cp_ledger_sql')]);
    orms = await Promise.all(dbs.map((db) => openDatabase({ clientUrl: db.url })));
  });
  afterAll(async () => {
    await Promise.all(orms.map((o) => o.close()));
    await Promise.all(dbs.map((d) => d.drop()));
  });

  const viaOrm = (journals: JournalInput[]) => orms[0]!.em.fork().transactional((em) => postJournals(em, journals, at));
  const viaSql = (journals: JournalInput[]) => new RawSql(orms[1]!).transaction((q) => postJournalsSql(q, journals, at));
  /** Both forms on their own database; the answers (or errors) must be alike. */
  async function both(journals: JournalInput[]): Promise<unknown> {
    const settle = (p: Promise<number>) =>
      p.then(
        (n) => ({ booked: n }),
        (e: { code?: string; name?: string }) => ({ error: e.code ?? e.name }),
      );
    const [x, y] = await Promise.all([settle(viaOrm(journals)), settle(viaSql(journals))]);
    expect(y).toEqual(x);
    return x;
  }

  /** Every row of the three tables, journal ids replaced by their reference, entry ids dropped. */
  async function books(orm: MikroORM): Promise<unknown> {
    const em = orm.em.fork();
    const journals = await em.execute<{ id: string; reference: string }[]>('select id, reference, kind, created_at from journals order by reference');
    const ref = new Map(journals.map((j) => [j.id, j.reference]));
    const entries = await em.execute<{ journal_id: string }[]>('select journal_id, account, amount::text, merchant_id, created_at from ledger_entries');
    return {
      journals: journals.map(({ id: _id, ...j }) => j),
      entries: entries.map((e) => ({ ...e, journal_id: ref.get(e.journal_id) })).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
      balances: await em.execute('select merchant_id, available::text, held::text, updated_at, version from merchant_balances order by merchant_id'),
    };
  }

  it('same rows and answers: first bookings (no balance row yet), several merchants, zero lines, repeats, overdraws, unbalanced journals', async () => {
    // First booking of both merchants: no balance row yet (the insert after the update).
    expect(
      await both([
        {
          reference: 'fund:a',
          kind: 'test',
          lines: [
            { account: 'chain:TRC20:deposits', amount: '-100' },
            { account: avail(a), amount: '100' },
          ],
        },
        {
          reference: 'fund:b',
          kind: 'test',
          lines: [
            { account: 'chain:TRC20:deposits', amount: '-50.5' },
            { account: avail(b), amount: '50.5' },
            { account: held(b), amount: '0' },
          ],
        },
      ]),
    ).toEqual({ booked: 2 });
    // Holds of both merchants in one call, a repeated reference skipped, a journal of zero lines not booked.
    expect(
      await both([
        {
          reference: 'hold:a1',
          kind: 'withdrawal_hold',
          lines: [
            { account: avail(a), amount: '-10.000001' },
            { account: held(a), amount: '10.000001' },
          ],
        },
        {
          reference: 'fund:a',
          kind: 'test',
          lines: [
            { account: 'chain:TRC20:deposits', amount: '-100' },
            { account: avail(a), amount: '100' },
          ],
        },
        {
          reference: 'zero',
          kind: 'test',
          lines: [
            { account: avail(a), amount: '0' },
            { account: held(a), amount: '0.000' },
          ],
        },
        {
          reference: 'hold:b1',
          kind: 'withdrawal_hold',
          lines: [
            { account: avail(b), amount: '-0.5' },
            { account: held(b), amount: '0.5' },
          ],
        },
        {
          reference: 'hold:a2',
          kind: 'withdrawal_hold',
          lines: [
            { account: avail(a), amount: '-20' },
            { account: held(a), amount: '20' },
          ],
        },
      ]),
    ).toEqual({ booked: 3 });
    // Only repeats: nothing booked.
    expect(
      await both([
        {
          reference: 'hold:a1',
          kind: 'withdrawal_hold',
          lines: [
            { account: avail(a), amount: '-10.000001' },
            { account: held(a), amount: '10.000001' },
          ],
        },
      ]),
    ).toEqual({ booked: 0 });
    // A payout: held leaves to the chain and the fee account.
    expect(
      await both([
        {
          reference: 'payout:a1',
          kind: 'withdrawal_payout',
          lines: [
            { account: held(a), amount: '-10.000001' },
            { account: 'chain:TRC20:payouts', amount: '9.000001' },
            { account: 'network:TRC20:fees', amount: '1' },
          ],
        },
      ]),
    ).toEqual({ booked: 1 });
    // An overdraw is refused by the check constraint (23514) and books nothing; an unbalanced journal is refused before any write.
    expect(
      await both([
        {
          reference: 'over:b',
          kind: 'withdrawal_hold',
          lines: [
            { account: avail(b), amount: '-50.000001' },
            { account: held(b), amount: '50.000001' },
          ],
        },
      ]),
    ).toEqual({ error: '23514' });
    expect(
      await both([
        {
          reference: 'bad',
          kind: 'test',
          lines: [
            { account: avail(a), amount: '-1' },
            { account: held(a), amount: '2' },
          ],
        },
      ]),
    ).toEqual({ error: new UnbalancedJournalError('bad', '1').name });
    expect(await both([])).toEqual({ booked: 0 });

    expect(await books(orms[1]!)).toEqual(await books(orms[0]!));
    const final = (await books(orms[1]!)) as { balances: { merchant_id: string; available: string; held: string; version: number }[] };
    expect(
      final.balances
        .map(({ merchant_id, available, held, version }) => ({ merchant_id, available: Number(available), held: Number(held), version }))
        .sort((x, y) => x.merchant_id.localeCompare(y.merchant_id)),
    ).toEqual(
      [
        { merchant_id: a, available: 69.999999, held: 20, version: 3 },
        { merchant_id: b, available: 50, held: 0.5, version: 2 },
      ].sort((x, y) => x.merchant_id.localeCompare(y.merchant_id)),
    );
  });
});
