import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { DaemonClock } from '../../src/actors/daemon-clock';
import { WithdrawalActors } from '../../src/actors/withdrawals/withdrawal-actors';
import { Withdrawals } from '../../src/actors/withdrawals/withdrawals';
import { Whitelist } from '../../src/actors/withdrawals/whitelist';
import { createAddressCodec } from '../../src/chains/codecs';
import { DevnetAdapter } from '../../src/chains/devnet/adapter';
import type { ChainAdapter, SignedPayout } from '../../src/chains/types';
import { formatAmount, toDecimal } from '../../src/domain/decimal';
import { ValidationError } from '../../src/domain/errors';
import type { NetworkCode, NetworkSettings } from '../../src/domain/networks';
import { SecretBox } from '../../src/security/secret-box';
import { openDatabase } from '../../src/store/orm';
import { merchantBalance, postJournal } from '../../src/store/repos/ledger';
import { MerchantsRepo } from '../../src/store/repos/merchants';
import { NetworkSettingsRepo } from '../../src/store/repos/network-settings';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { eventually } from '../support/stack';
import { restWithdrawal } from '../../src/lib/rest-json';
import { withdrawalView } from '../../src/views/withdrawal-view';
import { addressOf, DAY_S, expectLedgerExact } from './support';

/**
 * Payouts the chain refuses. The devnet never refuses a valid payout, so its adapter is wrapped
 * with a broadcast that fails the way a live adapter reports it; everything else is the real host
 * (actors, ledger, outbox) on a real database.
 */
class RefusingChain extends DevnetAdapter {
  failure: unknown = null;
  override async broadcastPayout(payout: SignedPayout): Promise<void> {
    if (this.failure) throw this.failure;
    return super.broadcastPayout(payout);
  }
}

describe('a payout the chain refuses', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  let clock: DaemonClock;
  let chain: RefusingChain;
  let actors: WithdrawalActors;
  let withdrawals: Withdrawals;
  let network: NetworkSettings;
  let merchantId: string;
  const payee = addressOf('TRC20', 'failure-payee');

  beforeAll(async () => {
    db = await createTestDatabase('cp_wdfail');
    orm = await openDatabase({ clientUrl: db.url });
    clock = new DaemonClock();
    chain = new RefusingChain({
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
    const whitelist = new Whitelist({ orm, clock, adapters });
    withdrawals = new Withdrawals({ orm, logger, clock, actors, adapters, whitelist, livemode: false, pollIntervalMs: 50 });
    const repo = new NetworkSettingsRepo(() => new Map());
    await repo.seed(orm.em.fork(), [{ code: 'TRC20', enabled: true, buyerNetworkFee: '1', withdrawalFee: '1', minInvoice: '1', minWithdrawal: '1', requiredConfirmations: 3 }], clock.now());
    network = (await repo.get(orm.em.fork(), 'TRC20'))!;

    const em = orm.em.fork();
    const created = await new MerchantsRepo(new SecretBox(randomBytes(32))).create(em, { name: 'Failing shop', webhookUrl: null, platformFeePercent: '1' }, clock.now());
    merchantId = created.merchant.id;
    await em.transactional((tx) =>
      postJournal(
        tx,
        `test:${merchantId}:fund`,
        'test',
        [
          { account: 'chain:TRC20:deposits', amount: '-100' },
          { account: `merchant:${merchantId}:available`, amount: '100' },
        ],
        clock.now(),
      ),
    );
    await whitelist.add(merchantId, network, payee, 'operator');
    clock.advance(DAY_S * 1000);
  });
  afterAll(async () => {
    await actors?.stop();
    await chain?.close();
    await orm?.close();
    await db?.drop();
  });

  const statusOf = async (uuid: string, want: string) =>
    eventually(
      async () => {
        const row = await withdrawals.get(uuid, merchantId);
        return row.status === want ? row : undefined;
      },
      10_000,
      `withdrawal to be ${want}`,
    );

  /** The signed payout as stored on the row (tx_hash itself stays null until broadcast). */
  const storedPayout = async (uuid: string): Promise<SignedPayout> => {
    const [row] = await orm.em.fork().execute<{ signed_raw: string; signed_meta: Record<string, string | number> }[]>('select signed_raw, signed_meta from withdrawals where uuid = ?', [uuid]);
    return { txHash: String(row!.signed_meta.latest_tx_hash), raw: row!.signed_raw, meta: row!.signed_meta };
  };

  it.each([
    ['a refusal of ours (DomainError)', new ValidationError('payout_rejected', 'the transfer would revert')],
    ['an EVM adapter error by code (the transfer would revert)', Object.assign(new Error('payout x would fail: execution reverted'), { code: 'payout_rejected' })],
  ])('%s: failed with the reason, the hold released, a withdrawal.failed event', async (_name, failure) => {
    chain.failure = failure;
    const { row, created } = await withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '10' }, [network]);
    expect(created).toBe(true);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '90', held: '10' });
    const failed = await statusOf(row.uuid, 'failed');
    expect(failed.failureReason).toMatch(/^payout_rejected: /);
    expect(failed.failureReason).toContain(failure instanceof ValidationError ? 'the transfer would revert' : 'execution reverted');
    // The REST object and the withdrawal.failed event say why; rejection_reason is for an operator's rejection.
    expect(restWithdrawal(withdrawalView(failed, { livemode: false }))).toMatchObject({ status: 'failed', failure_reason: failed.failureReason, rejection_reason: null });
    expect(failed.completedAt).toBeNull();
    expect(failed.open).toBe(false);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '100', held: '0' });
    const events = await orm.em.fork().execute<{ type: string; body: string }[]>('select type, body from outbox_events where aggregate_id = ? order by seq', [row.uuid]);
    expect(events.map((e) => e.type)).toEqual(['withdrawal.processing', 'withdrawal.failed']);
    expect(JSON.parse(events[1]!.body).data).toMatchObject({ uuid: row.uuid, status: 'failed', amount: '10', net_payout: '9', failure_reason: failed.failureReason, rejection_reason: null });
    expect(JSON.parse(events[0]!.body).data.failure_reason).toBeNull();
    await expectLedgerExact(orm);
  });

  it('a transient broadcast error is retried, never released on a guess', async () => {
    chain.failure = new Error('connection reset');
    const { row } = await withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '10' }, [network]);
    await new Promise((r) => setTimeout(r, 300));
    expect((await withdrawals.get(row.uuid, null)).status).toBe('processing');
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '90', held: '10' });
    // Signed (and stored) before the broadcast failed; tx_hash is shown only once it was broadcast.
    expect((await withdrawals.get(row.uuid, null)).txHash).toBeNull();
    const { txHash } = await storedPayout(row.uuid);
    chain.failure = null;
    // The retry sends it: it waits in the devnet mempool.
    await eventually(async () => ((await chain.payoutStatus({ txHash, raw: '', meta: {} })).state === 'pending' ? true : undefined));
    await chain.mine(3);
    const done = await statusOf(row.uuid, 'completed');
    expect(done.completedAt).not.toBeNull();
    expect(done.txHash).toBe(txHash);
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: '90', held: '0' });
    await expectLedgerExact(orm);
  });

  const nonceConsumed = () => Object.assign(new Error('nonce 7 of payout 0xab was used by another transaction'), { code: 'payout_nonce_consumed' });

  /** Until the withdrawal waits for an operator (flagged on the row), then some polls more. */
  const waitsForOperator = async (uuid: string) => {
    const flagged = await eventually(
      async () => {
        const row = await withdrawals.get(uuid, null);
        return row.failureReason === 'needs_operator: payout_nonce_consumed' ? row : undefined;
      },
      10_000,
      'the withdrawal to wait for an operator',
    );
    await new Promise((r) => setTimeout(r, 300)); // several poll intervals: nothing changes by itself
    return flagged;
  };

  it('a nonce used by another transaction (as one node tells it) releases nothing: processing, held, flagged for an operator; the operator rejects it', async () => {
    const before = await merchantBalance(orm.em.fork(), merchantId);
    chain.failure = nonceConsumed();
    const { row } = await withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '10' }, [network]);
    const flagged = await waitsForOperator(row.uuid);
    expect(flagged).toMatchObject({ status: 'processing', txHash: null, open: true });
    expect((await withdrawals.get(row.uuid, null)).status).toBe('processing');
    expect(actors.snapshot(row.uuid)!.value).toMatchObject({ processing: { needsOperator: expect.any(String) } });
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: formatAmount(toDecimal(before.available).minus(10)), held: '10' });
    const events = await orm.em.fork().execute<{ type: string }[]>('select type from outbox_events where aggregate_id = ? order by seq', [row.uuid]);
    expect(events.map((e) => e.type)).toEqual(['withdrawal.processing']);
    // Approving is not a way out (it is not in review); rejecting is, after checking the chain.
    await expect(withdrawals.approve(row.uuid, 'operator')).rejects.toMatchObject({ code: 'withdrawal_not_in_review' });
    const rejected = await withdrawals.reject(row.uuid, 'checked the chain: never paid', 'operator');
    expect(rejected).toMatchObject({ status: 'rejected', rejectionReason: 'checked the chain: never paid', open: false });
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual(before);
    const audit = await orm.em.fork().execute<{ action: string; before: Record<string, unknown> }[]>('select action, before from audit_log where target = ?', [`withdrawal:${row.uuid}`]);
    expect(audit).toEqual([{ action: 'withdrawal.reject', before: expect.objectContaining({ status: 'processing', failure_reason: 'needs_operator: payout_nonce_consumed' }) }]);
    await expectLedgerExact(orm);
    chain.failure = null;
  });

  it('flagged for an operator, the payout that a node reports after all (it was mined) completes the withdrawal: paid once, never released', async () => {
    chain.failure = nonceConsumed();
    const { row } = await withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '10' }, [network]);
    await waitsForOperator(row.uuid);
    const held = await merchantBalance(orm.em.fork(), merchantId);
    // The transaction was out there after all (the node that answered lagged): it shows up, mined.
    const payout = await storedPayout(row.uuid);
    await DevnetAdapter.prototype.broadcastPayout.call(chain, payout);
    await chain.mine(3);
    const done = await statusOf(row.uuid, 'completed');
    expect(done).toMatchObject({ txHash: payout.txHash, failureReason: null });
    expect(await merchantBalance(orm.em.fork(), merchantId)).toEqual({ available: held.available, held: formatAmount(toDecimal(held.held).minus(10)) });
    await expectLedgerExact(orm);
    chain.failure = null;
  });
});
