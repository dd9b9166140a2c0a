import { randomBytes, randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { DaemonClock } from '../../src/actors/daemon-clock';
import { insertWithdrawals } from '../../src/actors/withdrawals/creation-sql';
import { persistedInitialSnapshot, WithdrawalActors } from '../../src/actors/withdrawals/withdrawal-actors';
import { holdLines, holdReference } from '../../src/actors/withdrawals/withdrawal-ledger';
import { restWithdrawal } from '../../src/lib/rest-json';
import { withdrawalView } from '../../src/views/withdrawal-view';
import { rolledBack, Withdrawals } from '../../src/actors/withdrawals/withdrawals';
import { Whitelist } from '../../src/actors/withdrawals/whitelist';
import { createAddressCodec } from '../../src/chains/codecs';
import { DevnetAdapter } from '../../src/chains/devnet/adapter';
import type { ChainAdapter } from '../../src/chains/types';
import { ValidationError } from '../../src/domain/errors';
import type { NetworkCode, NetworkSettings } from '../../src/domain/networks';
import { createWithdrawalContext, type WithdrawalMachineContext } from '../../src/domain/withdrawal-context';
import { SecretBox } from '../../src/security/secret-box';
import { Withdrawal } from '../../src/store/entities';
import { openDatabase } from '../../src/store/orm';
import { RawSql, type Query } from '../../src/store/raw-sql';
import { merchantBalance, postJournal, postJournals, postJournalsSql } from '../../src/store/repos/ledger';
import { MerchantsRepo } from '../../src/store/repos/merchants';
import { NetworkSettingsRepo } from '../../src/store/repos/network-settings';
import { withdrawalEvents } from '../../src/webhooks/outbox';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { eventually } from '../support/stack';
import { addressOf, DAY_S, expectLedgerExact } from './support';

type Row = Record<string, unknown>;

/** The daemon clock, whose now() a test can hold still (two commits then write the same times). */
class FreezableClock extends DaemonClock {
  frozen: Date | null = null;
  override now(): Date {
    return this.frozen ? new Date(this.frozen) : super.now();
  }
}

/**
 * The creating transaction on raw SQL (creation-sql.ts, postJournalsSql): the rows it writes are
 * the rows the EntityManager path wrote (persist + flush, postJournals, the events persisted), and
 * a batch the database refuses (by SQLSTATE) still gives every caller its own answer.
 */
describe('creating withdrawals on raw SQL', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  let sql: RawSql;
  let clock: FreezableClock;
  let chain: DevnetAdapter;
  let actors: WithdrawalActors;
  let whitelist: Whitelist;
  let withdrawals: Withdrawals;
  let network: NetworkSettings;
  /** Runs in the creating transaction before its rows are inserted (Withdrawals' beforeInsert). */
  let hook: ((q: Query, rows: readonly Withdrawal[]) => Promise<void>) | null = null;
  const payee = addressOf('TRC20', 'raw-creation-payee');

  async function newMerchant(name: string, fund: string, caps?: { per: string; daily: string }): Promise<string> {
    const em = orm.em.fork();
    const created = await new MerchantsRepo(new SecretBox(randomBytes(32))).create(em, { name, webhookUrl: null, platformFeePercent: '1' }, clock.now());
    const merchantId = created.merchant.id;
    if (caps) await em.execute('update merchants set cap_per_withdrawal = ?, cap_daily = ? where id = ?', [caps.per, caps.daily, merchantId]);
    await em.transactional((tx) =>
      postJournal(
        tx,
        `test:${merchantId}:fund`,
        'test',
        [
          { account: 'chain:TRC20:deposits', amount: `-${fund}` },
          { account: `merchant:${merchantId}:available`, amount: fund },
        ],
        clock.now(),
      ),
    );
    await whitelist.add(merchantId, network, payee, 'operator');
    return merchantId;
  }

  /** Another daemon's work, committed on its own connection while the creating transaction is open. */
  async function debitElsewhere(merchantId: string, amount: string): Promise<void> {
    await orm.em.fork().transactional((tx) =>
      postJournal(
        tx,
        `test:${randomUUID()}:debit`,
        'test',
        [
          { account: `merchant:${merchantId}:available`, amount: `-${amount}` },
          { account: 'chain:TRC20:deposits', amount },
        ],
        clock.now(),
      ),
    );
  }

  /** A withdrawal committed the way the EntityManager path did it (row, hold, event in one transaction). */
  async function createThroughOrm(row: Withdrawal, snapshot: unknown, now: Date): Promise<void> {
    row.actorSnapshot = snapshot;
    await orm.em.fork().transactional(async (em) => {
      em.persist(row);
      await em.flush();
      await postJournals(em, [{ reference: holdReference(row.uuid), kind: 'withdrawal_hold', lines: holdLines(row.merchantId, row.amount) }], now);
      for (const event of withdrawalEvents(row, [`withdrawal.${row.status}`], now, { livemode: false })) em.persist(event);
    });
  }

  const q = <T = Row>(text: string, values: unknown[] = []) => orm.em.fork().execute<T[]>(text, values);
  /** Every column of a table row, as PostgreSQL holds it (jsonb text for comparison). */
  const rowOf = async (table: string, where: string, values: unknown[]): Promise<Row[]> => (await q<{ r: Row }>(`select to_jsonb(t.*) as r from ${table} t where ${where}`, values)).map((x) => x.r);

  /** The stored rows of one withdrawal: its row, its journals and their entries, its outbox events; ids replaced by the same placeholders. */
  async function storedWithdrawal(uuid: string, reference: string | null): Promise<unknown> {
    const journals = (await rowOf('journals', 'reference like ?', [`withdrawal:${uuid}:%`])).sort((a, b) => String(a.reference).localeCompare(String(b.reference)));
    const entries = async (journalId: unknown) =>
      (await rowOf('ledger_entries', 'journal_id = ?', [journalId])).map((e): Row => ({ ...e, id: 'E', journal_id: 'J' })).sort((a, b) => String(a.account).localeCompare(String(b.account)));
    const events = (await rowOf('outbox_events', "aggregate_id = ? and aggregate_type = 'withdrawal'", [uuid])).sort((a, b) => Number(a.seq) - Number(b.seq));
    let text = JSON.stringify({
      row: await rowOf('withdrawals', 'uuid = ?', [uuid]),
      journals: await Promise.all(journals.map(async (j) => ({ journal: { ...j, id: 'J' }, entries: await entries(j.id) }))),
      // seq and tx_id (the writing transaction's id) differ between any two inserts.
      events: events.map((e) => ({ ...e, seq: 'S', tx_id: typeof e.tx_id === 'string' ? 'TX' : e.tx_id, body: JSON.parse(String(e.body)) as Row })),
    });
    for (const e of events) text = text.split(String(e.id)).join('EVT');
    text = text.split(uuid).join('UUID');
    if (reference !== null) text = text.split(JSON.stringify(reference)).join('"REF"');
    return JSON.parse(text);
  }

  function newRow(merchantId: string, status: 'review' | 'processing', now: Date, reference: string | null): { row: Withdrawal; context: WithdrawalMachineContext } {
    const uuid = randomUUID();
    const context = createWithdrawalContext({ uuid, network: 'TRC20', address: payee, netPayout: '4.5', requiredConfirmations: 3, review: status === 'review', pollIntervalMs: 50 });
    const row = new Withdrawal(uuid, merchantId, context.status, 'TRC20', payee, '5.5', '1', '4.5', now);
    row.reference = reference;
    return { row, context };
  }

  beforeAll(async () => {
    db = await createTestDatabase('cp_wdraw');
    orm = await openDatabase({ clientUrl: db.url });
    sql = new RawSql(orm);
    clock = new FreezableClock();
    chain = new DevnetAdapter({
      network: 'TRC20',
      codec: createAddressCodec('TRC20', { mnemonic: 'test test test test test test test test test test test junk' }),
      clock,
      blockIntervalMs: 0,
      finalityDepth: 3,
    });
    await chain.init();
    const adapters = new Map<NetworkCode, ChainAdapter>([['TRC20', chain]]);
    const logger = pino({ level: 'silent' });
    actors = new WithdrawalActors({ orm, logger, clock, adapters, livemode: false });
    whitelist = new Whitelist({ orm, clock, adapters });
    const beforeInsert = async (tx: Query, rows: readonly Withdrawal[]) => {
      await hook?.(tx, rows);
    };
    withdrawals = new Withdrawals({ orm, logger, clock, actors, adapters, whitelist, livemode: false, beforeInsert, pollIntervalMs: 50 });
    const repo = new NetworkSettingsRepo(() => new Map());
    await repo.seed(orm.em.fork(), [{ code: 'TRC20', enabled: true, buyerNetworkFee: '1', withdrawalFee: '1', minInvoice: '1', minWithdrawal: '1', requiredConfirmations: 3 }], clock.now());
    network = (await repo.get(orm.em.fork(), 'TRC20'))!;
    await newMerchant('warm-up', '1');
  });
  afterEach(() => {
    hook = null;
  });
  afterAll(async () => {
    await actors?.stop();
    await chain?.close();
    await orm?.close();
    await db?.drop();
  });

  it.each(['processing', 'review'] as const)(
    'a %s withdrawal written with raw SQL is stored exactly as the EntityManager path stored it: row, hold journal and entries, outbox event, balance',
    async (status) => {
      const viaSql = await newMerchant(`raw ${status}`, '100');
      const viaOrm = await newMerchant(`orm ${status}`, '100');
      const now = clock.now();
      const a = newRow(viaSql, status, now, `ref-${status}`);
      const b = newRow(viaOrm, status, now, `ref-${status}`);
      const snapshotA = persistedInitialSnapshot(a.context, clock);
      a.row.actorSnapshot = snapshotA;
      await sql.transaction(async (tx) => {
        await insertWithdrawals(tx, [a.row], [JSON.stringify(snapshotA)], withdrawalEvents(a.row, [`withdrawal.${status}`], now, { livemode: false }));
        await postJournalsSql(tx, [{ reference: holdReference(a.row.uuid), kind: 'withdrawal_hold', lines: holdLines(viaSql, a.row.amount) }], now);
      });
      await createThroughOrm(b.row, persistedInitialSnapshot(b.context, clock), now);

      const stored = async (row: Withdrawal) =>
        JSON.stringify(await storedWithdrawal(row.uuid, row.reference))
          .split(row.merchantId)
          .join('MERCHANT');
      expect(await stored(a.row)).toEqual(await stored(b.row));
      const balances = await rowOf('merchant_balances', 'merchant_id in (?, ?)', [viaSql, viaOrm]);
      expect(balances.map((x) => ({ ...x, merchant_id: 'M' }))).toEqual([balances[0]!, balances[0]!].map((x) => ({ ...x, merchant_id: 'M' })));
      expect(await merchantBalance(orm.em.fork(), viaSql)).toEqual({ available: '94.5', held: '5.5' });

      // Loaded through the EntityManager, the two rows are the same entity but for their keys.
      const load = (uuid: string) => orm.em.fork().findOneOrFail(Withdrawal, { uuid }, { populate: ['actorSnapshot', 'signedRaw'] as never });
      const [la, lb] = [await load(a.row.uuid), await load(b.row.uuid)];
      const plain = (w: Withdrawal) =>
        JSON.parse(
          JSON.stringify({ ...w })
            .split(w.uuid)
            .join('U')
            .split(w.merchantId)
            .join('M'),
        ) as unknown;
      expect(plain(la)).toEqual(plain(lb));
      await expectLedgerExact(orm);
    },
  );

  it('Withdrawals.create stores what it returns: the row as the EntityManager loads it, the real actor snapshot, the event with the REST object', async () => {
    const merchantId = await newMerchant('end to end', '100', { per: '1', daily: '5000' }); // above the cap: stays in review
    clock.advance(DAY_S * 1000);
    const { row, created } = await withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '7.25', reference: 'e2e-1' }, [network]);
    expect(created).toBe(true);
    expect(row.status).toBe('review');
    const loaded = await orm.em.fork().findOneOrFail(Withdrawal, { uuid: row.uuid }, { populate: ['actorSnapshot'] as never });
    expect(withdrawalView(loaded, { livemode: false })).toEqual(withdrawalView(row, { livemode: false }));
    expect(loaded.version).toBe(1);
    expect(loaded.open).toBe(true);
    const context = createWithdrawalContext({ uuid: row.uuid, network: 'TRC20', address: payee, netPayout: '6.25', requiredConfirmations: 3, review: true, pollIntervalMs: 50 });
    expect(loaded.actorSnapshot).toEqual(persistedInitialSnapshot(context, clock));
    const [event] = await q<{ body: string; type: string; created_at: string }>(`select body, type, created_at::text from outbox_events where aggregate_id = ?`, [row.uuid]);
    const body = JSON.parse(event!.body) as Row;
    expect(body).toEqual({
      id: expect.stringMatching(/^evt_[0-9a-f]{24}$/),
      type: 'withdrawal.review',
      created_at: row.createdAt.toISOString(),
      data: restWithdrawal(withdrawalView(loaded, { livemode: false })),
    });
    // A repeat of the reference answers with the original (200), nothing new stored.
    const again = await withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '9', reference: 'e2e-1' }, [network]);
    expect({ uuid: again.row.uuid, created: again.created }).toEqual({ uuid: row.uuid, created: false });
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '92.75', held: '7.25' });
  });

  it('an actor commit with work (an operator decision) writes the same rows as one without: row, release journal and entries, event', async () => {
    const caps = { per: '1', daily: '5000' }; // above the cap: both wait in review
    const viaSql = await newMerchant('commit raw', '50', caps);
    const viaOrm = await newMerchant('commit orm', '50', caps);
    clock.advance(DAY_S * 1000);
    clock.frozen = clock.now();
    try {
      const a = await withdrawals.create(viaSql, { network: 'TRC20', address: payee, amount: '12.5', reference: 'commit-1' }, [network]);
      const b = await withdrawals.create(viaOrm, { network: 'TRC20', address: payee, amount: '12.5', reference: 'commit-1' }, [network]);
      const reject = { type: 'REJECT' as const, reason: 'not today' };
      await actors.send(a.row.uuid, reject); // no work
      await actors.send(b.row.uuid, reject, async () => undefined); // work that writes nothing
      const stored = async (row: Withdrawal) =>
        JSON.stringify(await storedWithdrawal(row.uuid, row.reference))
          .split(row.merchantId)
          .join('MERCHANT');
      const [sa, sb] = [await stored(a.row), await stored(b.row)];
      expect(sa).toEqual(sb);
      expect(JSON.parse(sa)).toMatchObject({
        row: [{ status: 'rejected', open: false, version: 2, rejection_reason: 'not today' }],
        events: [{ type: 'withdrawal.review' }, { type: 'withdrawal.rejected' }],
      });
      expect((JSON.parse(sa) as { journals: unknown[] }).journals).toHaveLength(2);
      expect(await merchantBalance(orm.em.fork(), viaSql)).toEqual({ available: '50', held: '0' });
      const balances = await rowOf('merchant_balances', 'merchant_id in (?, ?)', [viaSql, viaOrm]);
      expect({ ...balances[0], merchant_id: 'M' }).toEqual({ ...balances[1], merchant_id: 'M' });
      expect(actors.has(a.row.uuid) || actors.has(b.row.uuid)).toBe(false); // done: both closed
    } finally {
      clock.frozen = null;
    }
    await expectLedgerExact(orm);
  });

  it('a repeated reference answers with the original (200) whatever its body says now: invalid, over the balance, or to an address since removed; an unknown merchant is refused as not whitelisted', async () => {
    const merchantId = await newMerchant('repeats', '10');
    clock.advance(DAY_S * 1000);
    const first = await withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '4', reference: 'rep-1' }, [network]);
    expect(first.created).toBe(true);
    const bodies: Record<string, unknown>[] = [
      { network: 'NOPE', address: payee, amount: '4', reference: 'rep-1' }, // unknown network
      { network: 'TRC20', address: 'not-an-address', amount: 'x', reference: 'rep-1' }, // invalid address and amount
      { network: 'TRC20', address: payee, amount: '1000', reference: 'rep-1' }, // over the balance
    ];
    for (const body of bodies) {
      const again = await withdrawals.create(merchantId, body, [network]);
      expect({ uuid: again.row.uuid, created: again.created }).toEqual({ uuid: first.row.uuid, created: false });
    }
    await whitelist.remove(merchantId, network, payee, 'operator');
    const removed = await withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '4', reference: 'rep-1' }, [network]);
    expect({ uuid: removed.row.uuid, created: removed.created }).toEqual({ uuid: first.row.uuid, created: false });
    await expect(withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '4', reference: 'rep-2' }, [network])).rejects.toMatchObject({
      code: 'address_not_whitelisted',
      field: 'address',
    });
    await expect(withdrawals.create(merchantId, { network: 'NOPE', address: payee, amount: '4', reference: 'rep-3' }, [network])).rejects.toMatchObject({ code: 'unknown_network' });
    await expect(withdrawals.create(randomUUID(), { network: 'TRC20', address: payee, amount: '4' }, [network])).rejects.toMatchObject({ code: 'address_not_whitelisted' });
    expect(await q('select reference from withdrawals where merchant_id = ?', [merchantId])).toEqual([{ reference: 'rep-1' }]);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '6', held: '4' });
  });

  it('a batch whose connection dies (57P01, no answer to COMMIT possible) is not retried: every caller gets the error, nothing is stored, and the pool serves the next creation', async () => {
    const merchantId = await newMerchant('dead connection', '100');
    clock.advance(DAY_S * 1000);
    let killed = 0;
    const { outcomes } = await batchBehindGate(merchantId, { amount: '5' }, [{ amount: '6' }, { amount: '7' }], async (tx) => {
      killed++;
      await tx('select pg_terminate_backend(pg_backend_pid())');
    });
    expect(killed).toBe(1); // tried once, never one by one
    expect(outcomes.map((o) => (o.ok ? 'created' : 'failed'))).toEqual(['failed', 'failed']);
    const errors = outcomes.map((o) => (o.ok ? null : (o.e as { code?: string; message: string })));
    expect(errors[0]).toBe(errors[1]); // the same error for every caller of the batch
    expect(rolledBack(errors[0])).toBe(false);
    expect(await q<{ amount: string }>('select amount::float8::text as amount from withdrawals where merchant_id = ?', [merchantId])).toEqual([{ amount: '5' }]);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '95', held: '5' });
    hook = null;
    // The dead connection does not come back from the pool: every connection it holds at once works.
    await Promise.all(Array.from({ length: 20 }, () => sql.query('select pg_sleep(0.05)')));
    for (let i = 0; i < 5; i++) await withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '2' }, [network]);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '85', held: '15' });
    await expectLedgerExact(orm);
  });

  it('a reference PostgreSQL cannot store (a NUL character) is refused alone (422 invalid_reference, before any SQL), not the batch it would share', async () => {
    const merchantId = await newMerchant('nul reference', '100');
    clock.advance(DAY_S * 1000);
    const { outcomes } = await batchBehindGate(merchantId, { amount: '5' }, [{ amount: '6', reference: 'ok-1' }, { amount: '7', reference: 'bad\u0000ref' }, { amount: '8' }], async () => undefined);
    expect(outcomes.map((o) => (o.ok ? o.v.row.amount : (o.e as { code?: string }).code))).toEqual(['6', 'invalid_reference', '8']);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '81', held: '19' });
  });

  it('rolledBack decides by SQLSTATE and DomainError, never by the message', () => {
    for (const code of ['23505', '23514', '40001', '40P01']) expect(rolledBack(Object.assign(new Error('x'), { code }))).toBe(true);
    expect(rolledBack(new ValidationError('insufficient_balance', 'no'))).toBe(true);
    expect(rolledBack(new Error('duplicate key value violates unique constraint "withdrawals_merchant_reference_unique"'))).toBe(false);
    expect(rolledBack(new Error('new row for relation "merchant_balances" violates check constraint'))).toBe(false);
    expect(rolledBack(Object.assign(new Error('Connection terminated unexpectedly'), { code: undefined }))).toBe(false);
    expect(rolledBack(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))).toBe(false);
    expect(rolledBack(Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }))).toBe(false);
  });

  /** `n` creations of the merchant queued as one batch behind a first one whose transaction is held open. */
  async function batchBehindGate(merchantId: string, first: Record<string, unknown>, rest: Record<string, unknown>[], inject: (tx: Query, rows: readonly Withdrawal[]) => Promise<void>) {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    hook = async (tx, rows) => {
      if (calls++ === 0) return gate;
      return inject(tx, rows);
    };
    const create = (body: Record<string, unknown>) =>
      withdrawals.create(merchantId, { network: 'TRC20', address: payee, ...body }, [network]).then(
        (v) => ({ ok: true as const, v }),
        (e: unknown) => ({ ok: false as const, e }),
      );
    const firstDone = create(first);
    await new Promise((r) => setTimeout(r, 100));
    const pending = rest.map(create);
    await new Promise((r) => setTimeout(r, 300)); // all past their checks, queued for the next batch
    release();
    expect((await firstDone).ok).toBe(true);
    return { outcomes: await Promise.all(pending), calls: () => calls };
  }

  it('a batch refused with a unique violation (23505: the reference committed meanwhile elsewhere) is created one by one: the repeat answers with the original, the others are created', async () => {
    const merchantId = await newMerchant('unique race', '100');
    clock.advance(DAY_S * 1000);
    let stolen: Withdrawal | null = null;
    const { outcomes } = await batchBehindGate(merchantId, { amount: '5' }, [{ amount: '6', reference: 'u-1' }, { amount: '7', reference: 'u-2' }, { amount: '8' }], async (_tx, rows) => {
      if (stolen || !rows.some((r) => r.reference === 'u-2')) return;
      // Committed on another connection while the batch is open, the EntityManager way.
      const { row } = newRow(merchantId, 'processing', clock.now(), 'u-2');
      row.status = 'review'; // stays put: nothing pays it out in this test
      stolen = row;
      await createThroughOrm(
        row,
        persistedInitialSnapshot(createWithdrawalContext({ uuid: row.uuid, network: 'TRC20', address: payee, netPayout: '4.5', requiredConfirmations: 3, review: true, pollIntervalMs: 50 }), clock),
        clock.now(),
      );
    });
    expect(stolen).not.toBeNull();
    expect(outcomes.map((o) => (o.ok ? { created: o.v.created, amount: o.v.row.amount } : o.e))).toEqual([
      { created: true, amount: '6' },
      { created: false, amount: expect.stringMatching(/^5\.5/) }, // the original, as stored
      { created: true, amount: '8' },
    ]);
    const second = outcomes[1]!;
    expect(second.ok && second.v.row.uuid).toBe(stolen!.uuid);
    const rows = await q<{ amount: string; reference: string | null }>('select amount::float8::text as amount, reference from withdrawals where merchant_id = ? order by amount', [merchantId]);
    expect(rows).toEqual([
      { amount: '5', reference: null },
      { amount: '5.5', reference: 'u-2' },
      { amount: '6', reference: 'u-1' },
      { amount: '8', reference: null },
    ]);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '75.5', held: '24.5' });
    await expectLedgerExact(orm);
  });

  it('a batch refused with a check violation (23514: the balance was spent meanwhile elsewhere) is created one by one: what the balance covers is created, the rest gets insufficient_balance', async () => {
    const merchantId = await newMerchant('check race', '100');
    clock.advance(DAY_S * 1000);
    let debited = false;
    const { outcomes } = await batchBehindGate(merchantId, { amount: '5' }, [{ amount: '30' }, { amount: '40' }, { amount: '10' }], async () => {
      if (debited) return;
      debited = true;
      await debitElsewhere(merchantId, '50'); // 95 - 50 = 45 left: the batch's 80 would overdraw
    });
    expect(debited).toBe(true);
    expect(outcomes.map((o) => (o.ok ? o.v.row.amount : (o.e as ValidationError).code))).toEqual(['30', 'insufficient_balance', '10']);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '5', held: '45' });
    await expectLedgerExact(orm);
  });

  it('requests of several merchants that arrive together commit in one transaction; rolled back as a whole (23514 on one merchant), each merchant is created alone', async () => {
    const [a, b, c] = [await newMerchant('group a', '100'), await newMerchant('group b', '100'), await newMerchant('group c', '100')];
    clock.advance(DAY_S * 1000);
    const runs: string[][] = [];
    hook = async (_tx, rows) => {
      runs.push(rows.map((r) => `${r.merchantId === a ? 'a' : r.merchantId === b ? 'b' : 'c'}${r.amount}`));
      if (runs.length === 1) await debitElsewhere(b, '95'); // b keeps 5: the run's 10 for b would overdraw
    };
    const create = (merchantId: string, amount: string) =>
      withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount }, [network]).then(
        (v) => v.row.amount,
        (e: unknown) => (e as ValidationError).code,
      );
    const outcomes = await Promise.all([create(a, '10'), create(b, '10'), create(c, '10'), create(a, '20')]);
    expect(outcomes).toEqual(['10', 'insufficient_balance', '10', '20']);
    // One run of three merchants (each merchant's inputs in order), refused; then each merchant
    // alone: b's request is judged against its balance now and refused before any insert.
    expect(runs[0]).toEqual(['a10', 'a20', 'b10', 'c10']);
    expect(
      runs
        .slice(1)
        .map((r) => r.join(' '))
        .sort(),
    ).toEqual(['a10 a20', 'c10']);
    expect(await merchantBalance(orm.em.fork(), a)).toEqual({ available: '70', held: '30' });
    expect(await merchantBalance(orm.em.fork(), b)).toEqual({ available: '5', held: '0' });
    expect(await merchantBalance(orm.em.fork(), c)).toEqual({ available: '90', held: '10' });
    expect(await q('select 1 from withdrawals where merchant_id = ?', [b])).toEqual([]);
    await expectLedgerExact(orm);
  });

  it("a merchant id in upper case (a service token's x-merchant-id) is the same merchant: its balance holds the amount, concurrent requests in both cases cannot overdraw", async () => {
    const merchantId = await newMerchant('upper case', '10');
    clock.advance(DAY_S * 1000);
    const upper = merchantId.toUpperCase();
    const outcomes = await Promise.allSettled(
      [upper, merchantId, upper, merchantId].map((id, i) => withdrawals.create(id, { network: 'TRC20', address: payee, amount: '3', reference: `case-${i}` }, [network])),
    );
    expect(outcomes.map((o) => (o.status === 'fulfilled' ? o.value.row.merchantId : (o.reason as ValidationError).code))).toEqual([merchantId, merchantId, merchantId, 'insufficient_balance']);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '1', held: '9' });
    expect(await q('select account from ledger_entries where account like ?', [`merchant:${upper}%`])).toEqual([]);
    // A repeat in the other case answers with the original (200).
    const repeat = await withdrawals.create(upper, { network: 'TRC20', address: payee, amount: '3', reference: 'case-1' }, [network]);
    expect(repeat.created).toBe(false);
    await expectLedgerExact(orm);
  });

  it('two daemons creating for the same merchants, listed in opposite orders, at the same moments: no deadlock, nothing rolled back, every request created once', async () => {
    const caps = { per: '0.5', daily: '5000' }; // above the cap: they wait in review, nothing pays out
    const merchants: string[] = [];
    for (let i = 0; i < 8; i++) merchants.push(await newMerchant(`two daemons ${i}`, '20', caps));
    clock.advance(DAY_S * 1000);
    const logged: string[] = [];
    const daemons = await Promise.all(
      [0, 1].map(async () => {
        const own = await openDatabase({ clientUrl: db.url });
        const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) });
        const ownActors = new WithdrawalActors({ orm: own, logger, clock, adapters: new Map<NetworkCode, ChainAdapter>([['TRC20', chain]]), livemode: false });
        const runs: number[] = [];
        // Holds each run's locks a while, so the two daemons' runs overlap.
        const beforeInsert = async (_q: Query, rows: readonly Withdrawal[]) => {
          runs.push(new Set(rows.map((r) => r.merchantId)).size);
          await new Promise((r) => setTimeout(r, 20));
        };
        const host = new Withdrawals({
          orm: own,
          logger,
          clock,
          actors: ownActors,
          adapters: new Map<NetworkCode, ChainAdapter>([['TRC20', chain]]),
          whitelist,
          livemode: false,
          beforeInsert,
          pollIntervalMs: 50,
        });
        return { own, ownActors, host, runs };
      }),
    );
    try {
      const round = (d: (typeof daemons)[number], order: readonly string[], r: number) =>
        Promise.all(order.map((m, i) => d.host.create(m, { network: 'TRC20', address: payee, amount: '2', reference: `two-${d === daemons[0] ? 'a' : 'b'}-${r}-${i}` }, [network])));
      // The first round meets a merchant in the middle locked elsewhere (as `whitelist add` would
      // hold it): each daemon locks what comes before it in its order, then waits. Locking in the
      // order of arrival, the two would hold each other's next merchant once it is released.
      const byId = [...merchants].sort();
      const blocker = orm.em.fork();
      await blocker.begin();
      await blocker.execute('select id from merchants where id = ? for update', [byId[4]]);
      const pending = Promise.all(
        daemons.map(async (d, k) => {
          const order = k === 0 ? byId : [...byId].reverse();
          const out = [];
          for (let r = 0; r < 4; r++) out.push(...(await round(d, order, r)));
          return out;
        }),
      );
      // Lock waits of this test's database only (other test files share the server).
      const waiting = async () =>
        (await q<{ n: number }>('select count(distinct l.pid)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid where not l.granted and a.datname = current_database()'))[0]!.n;
      await eventually(async () => ((await waiting()) === 2 ? true : undefined), 10_000, 'both daemons waiting for a lock');
      await blocker.commit();
      const results = await pending;
      expect(results.flat().filter((x) => x.created && x.row.status === 'review')).toHaveLength(2 * 4 * merchants.length);
      expect(logged).toEqual([]); // no run rolled back (a deadlock would be 40P01, logged as a warning)
      for (const d of daemons) expect(d.runs).toEqual([merchants.length, merchants.length, merchants.length, merchants.length]);
      for (const m of merchants) expect(await merchantBalance(orm.em.fork(), m)).toEqual({ available: '4', held: '16' });
      await expectLedgerExact(orm);
    } finally {
      for (const d of daemons) {
        await d.ownActors.stop();
        await d.own.close();
      }
    }
  });

  it('a single creation refused by the database: 23514 answers insufficient_balance with the balance now, 23505 on its reference answers with the original (200)', async () => {
    const merchantId = await newMerchant('single races', '100');
    clock.advance(DAY_S * 1000);
    let injected = 0;
    hook = async () => {
      if (injected++ === 0) await debitElsewhere(merchantId, '90');
    };
    await expect(withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '20' }, [network])).rejects.toMatchObject({ code: 'insufficient_balance', details: { available: '10' } });
    expect(injected).toBe(1); // not retried: refused for good

    let original: Withdrawal | null = null;
    hook = async (_tx, rows) => {
      if (original) return;
      const { row } = newRow(merchantId, 'review', clock.now(), rows[0]!.reference);
      original = row;
      await createThroughOrm(
        row,
        persistedInitialSnapshot(createWithdrawalContext({ uuid: row.uuid, network: 'TRC20', address: payee, netPayout: '4.5', requiredConfirmations: 3, review: true, pollIntervalMs: 50 }), clock),
        clock.now(),
      );
    };
    const repeat = await withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '2', reference: 'single-1' }, [network]);
    expect({ uuid: repeat.row.uuid, created: repeat.created }).toEqual({ uuid: original!.uuid, created: false });
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '4.5', held: '5.5' });
    await expectLedgerExact(orm);
  });

  it('events written with raw SQL wake the webhook dispatcher at once, as flushed ones do (it polls only once a minute here)', async () => {
    const merchantId = await newMerchant('wake-up', '20', { per: '1', daily: '5000' }); // review: nothing pays it out
    clock.advance(DAY_S * 1000);
    const dispatcher = new WebhookDispatcher({
      orm,
      logger: pino({ level: 'silent' }),
      clock,
      merchants: new MerchantsRepo(new SecretBox(randomBytes(32))),
      allowPrivateTargets: false,
      pollMs: 60_000,
    });
    const pending = async () => Number((await q<{ n: string }>(`select count(*) as n from outbox_events where status = 'pending'`))[0]!.n);
    const states = async (uuid: string) =>
      (await q<{ type: string; status: string }>('select type, status from outbox_events where aggregate_id = ? order by seq', [uuid])).map((e) => `${e.type}:${e.status}`);
    dispatcher.start();
    try {
      await eventually(async () => ((await pending()) === 0 ? true : undefined), 10_000, 'the outbox to be worked off once'); // the start's own pass
      const { row } = await withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '3' }, [network]);
      // No webhook URL: the dispatcher keeps each event as unaddressed (no attempt), which shows it was picked up.
      await eventually(async () => ((await states(row.uuid)).join() === 'withdrawal.review:unaddressed' ? true : undefined), 5_000, 'the creation event to be picked up');
      await actors.send(row.uuid, { type: 'REJECT', reason: 'wake-up test' }); // the actor's raw commit
      await eventually(
        async () => ((await states(row.uuid)).join() === 'withdrawal.review:unaddressed,withdrawal.rejected:unaddressed' ? true : undefined),
        5_000,
        'the rejection event to be picked up',
      );
    } finally {
      await dispatcher.stop();
    }
  });
});
