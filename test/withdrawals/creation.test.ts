import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { DaemonClock } from '../../src/actors/daemon-clock';
import { WithdrawalActors } from '../../src/actors/withdrawals/withdrawal-actors';
import { Withdrawals } from '../../src/actors/withdrawals/withdrawals';
import { Whitelist } from '../../src/actors/withdrawals/whitelist';
import { createAddressCodec } from '../../src/chains/codecs';
import { DevnetAdapter } from '../../src/chains/devnet/adapter';
import type { ChainAdapter } from '../../src/chains/types';
import type { NetworkCode, NetworkSettings } from '../../src/domain/networks';
import { toMerchantMessage } from '../../src/grpc/services/merchants';
import { SecretBox } from '../../src/security/secret-box';
import { Merchant, type Withdrawal } from '../../src/store/entities';
import { openDatabase } from '../../src/store/orm';
import { merchantBalance, postJournal } from '../../src/store/repos/ledger';
import { MerchantsRepo } from '../../src/store/repos/merchants';
import { NetworkSettingsRepo } from '../../src/store/repos/network-settings';
import type { Query } from '../../src/store/raw-sql';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { eventually } from '../support/stack';
import { addressOf, DAY_S, expectLedgerExact } from './support';

/**
 * Creating withdrawals when the creating transaction goes wrong, or races an operator: the real
 * host (batches, actors, ledger, outbox) on a real database and the devnet chain. A hook on the
 * outbox writer, which runs inside the creating transaction, injects the failures.
 */
describe('creating withdrawals: failures, races and the default caps', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  let clock: DaemonClock;
  let chain: DevnetAdapter;
  let actors: WithdrawalActors;
  let whitelist: Whitelist;
  let withdrawals: Withdrawals;
  let network: NetworkSettings;
  /** Runs inside the creating transaction (on its connection) before each new row is inserted; may throw or wait. */
  let hook: ((q: Query, row: Withdrawal) => Promise<void>) | null = null;
  const payee = addressOf('TRC20', 'creation-payee');

  async function newMerchant(name: string, fund: string): Promise<string> {
    const em = orm.em.fork();
    const created = await new MerchantsRepo(new SecretBox(randomBytes(32))).create(em, { name, webhookUrl: null, platformFeePercent: '1' }, clock.now());
    const merchantId = created.merchant.id;
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

  const create = (merchantId: string, amount: string) => withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount }, [network]);
  const rowsOf = async (merchantId: string) =>
    (await orm.em.fork().execute<{ amount: string }[]>('select amount::float8::text as amount from withdrawals where merchant_id = ? order by amount', [merchantId])).map((r) => r.amount);

  beforeAll(async () => {
    db = await createTestDatabase('cp_wdcreate');
    orm = await openDatabase({ clientUrl: db.url });
    clock = new DaemonClock();
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
    const beforeInsert = async (q: Query, rows: readonly Withdrawal[]) => {
      for (const row of rows) await hook?.(q, row);
    };
    withdrawals = new Withdrawals({ orm, logger, clock, actors, adapters, whitelist, livemode: false, beforeInsert, pollIntervalMs: 50 });
    const repo = new NetworkSettingsRepo(() => new Map());
    await repo.seed(orm.em.fork(), [{ code: 'TRC20', enabled: true, buyerNetworkFee: '1', withdrawalFee: '1', minInvoice: '1', minWithdrawal: '1', requiredConfirmations: 3 }], clock.now());
    network = (await repo.get(orm.em.fork(), 'TRC20'))!;
    await newMerchant('warm-up', '1'); // whitelist entries made below become usable a day later
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

  /**
   * Three concurrent creations where the second and third are committed as one batch: the first
   * one's transaction is held open until both others have queued behind it (same merchant).
   */
  async function batchOfTwo(merchantId: string, inject: (q: Query, row: Withdrawal) => Promise<void>) {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    hook = async (q, row) => {
      if (row.amount === '5') await gate;
      else await inject(q, row);
    };
    const first = create(merchantId, '5');
    await new Promise((r) => setTimeout(r, 100));
    const rest = [create(merchantId, '7'), create(merchantId, '8')].map((p) =>
      p.then(
        (v) => ({ ok: true as const, v }),
        (e: unknown) => ({ ok: false as const, e }),
      ),
    );
    await new Promise((r) => setTimeout(r, 300)); // both past their checks, queued for the next batch
    release();
    await first;
    return Promise.all(rest);
  }

  it('a batch that fails with an error that may have come after COMMIT (e.g. a lost connection) is not re-created one by one: every caller gets the error', async () => {
    clock.advance(DAY_S * 1000);
    const merchantId = await newMerchant('lost commit', '100');
    clock.advance(DAY_S * 1000);
    let thrown = 0;
    const outcomes = await batchOfTwo(merchantId, async (_em, row) => {
      if (row.amount === '7' && thrown++ === 0) throw new Error('Connection terminated unexpectedly (injected)');
    });
    expect(thrown).toBe(1); // the batch was tried once, and only once
    expect(outcomes.map((o) => (o.ok ? 'created' : (o.e as Error).message))).toEqual(['Connection terminated unexpectedly (injected)', 'Connection terminated unexpectedly (injected)']);
    expect(await rowsOf(merchantId)).toEqual(['5']);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '95', held: '5' });
    await expectLedgerExact(orm);
  });

  it('a batch the database rolled back (serialization failure, SQLSTATE 40001) is created one by one: each input exactly once', async () => {
    const merchantId = await newMerchant('serialization', '100');
    clock.advance(DAY_S * 1000);
    let raised = 0;
    const outcomes = await batchOfTwo(merchantId, async (q, row) => {
      if (row.amount === '7' && raised++ === 0) await q(`do $$ begin raise exception 'injected' using errcode = '40001'; end $$`);
    });
    expect(raised).toBe(2); // in the batch, then alone
    expect(outcomes.map((o) => o.ok && o.v.created)).toEqual([true, true]);
    expect(await rowsOf(merchantId)).toEqual(['5', '7', '8']);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '80', held: '20' });
    await expectLedgerExact(orm);
  });

  it('a whitelist removal committed while a creation waits for the merchant lock wins: refused, nothing stored or held', async () => {
    const merchantId = await newMerchant('whitelist race', '100');
    clock.advance(DAY_S * 1000);
    const em = orm.em.fork();
    await em.begin();
    let pending: Promise<unknown> | undefined;
    try {
      await em.execute('select id from merchants where id = ? for update', [merchantId]); // what `whitelist remove` takes
      pending = create(merchantId, '10').then(
        (v) => v,
        (e: unknown) => e,
      );
      // The creation passed the whitelist check before the lock and now waits for the lock.
      await eventually(
        async () => {
          const [w] = await orm.em.fork().execute<{ n: number }[]>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`);
          return w!.n > 0 ? true : undefined;
        },
        10_000,
        'the creation to wait for the merchant lock',
      );
      await em.execute('update withdrawal_whitelist set removed_at = ? where merchant_id = ?', [clock.now(), merchantId]);
      await em.commit();
    } catch (err) {
      await em.rollback();
      throw err;
    }
    expect(await pending).toMatchObject({ code: 'address_not_whitelisted' });
    expect(await rowsOf(merchantId)).toEqual([]);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '100', held: '0' });
  });

  it('default caps: a new merchant has per_withdrawal 1000 and daily 5000; 1000.000001 waits in review, 1000 is paid out at once', async () => {
    const merchantId = await newMerchant('default caps', '3000');
    clock.advance(DAY_S * 1000);
    // As stored and read back (what `chainpay merchant get` shows), not as the entity was built.
    const merchant = await orm.em.fork().findOneOrFail(Merchant, { id: merchantId });
    expect(toMerchantMessage(merchant)).toMatchObject({ cap_per_withdrawal: '1000', cap_daily: '5000' });
    const above = await create(merchantId, '1000.000001');
    expect(above.row.status).toBe('review');
    const at = await create(merchantId, '1000');
    expect(at.row.status).toBe('processing');
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '999.999999', held: '2000.000001' });
  });
});
