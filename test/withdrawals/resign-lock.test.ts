import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { createActor, toPromise } from 'xstate';
import { DaemonClock } from '../../src/actors/daemon-clock';
import { PayoutSteps } from '../../src/actors/withdrawals/payout-steps';
import { WithdrawalActors } from '../../src/actors/withdrawals/withdrawal-actors';
import { Withdrawals } from '../../src/actors/withdrawals/withdrawals';
import { Whitelist } from '../../src/actors/withdrawals/whitelist';
import { createAddressCodec } from '../../src/chains/codecs';
import { DevnetAdapter } from '../../src/chains/devnet/adapter';
import type { ChainAdapter, SignedPayout } from '../../src/chains/types';
import type { NetworkCode, NetworkSettings } from '../../src/domain/networks';
import type { WithdrawalSignedPayout } from '../../src/domain/withdrawal-context';
import { SecretBox } from '../../src/security/secret-box';
import { openDatabase } from '../../src/store/orm';
import { postJournal } from '../../src/store/repos/ledger';
import { MerchantsRepo } from '../../src/store/repos/merchants';
import { NetworkSettingsRepo } from '../../src/store/repos/network-settings';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { eventually } from '../support/stack';
import { addressOf, DAY_S } from './support';

/** A TRC20 devnet whose node never accepts a broadcast: the payout stays signed, stored and unsent. */
class UnreachableChain extends DevnetAdapter {
  broadcasts = 0;
  override async broadcastPayout(_payout: SignedPayout): Promise<void> {
    this.broadcasts++;
    throw new Error('connection refused');
  }
}

/**
 * Signing anew after an expiry is a compare-and-set under the withdrawal row's lock: however many
 * signing steps ask at once to replace the same expired transaction, exactly one signs; the others
 * get the stored replacement. Real host (actors, payout steps), real database, devnet chain.
 */
describe('re-signing an expired payout under the row lock', () => {
  let db: TestDatabase;
  let orm: MikroORM;
  let clock: DaemonClock;
  let chain: UnreachableChain;
  let actors: WithdrawalActors;
  let withdrawals: Withdrawals;
  let network: NetworkSettings;
  let merchantId: string;
  const payee = addressOf('TRC20', 'resign-payee');
  const logs: { msg: string; attempt?: number }[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('cp_wdresign');
    orm = await openDatabase({ clientUrl: db.url });
    clock = new DaemonClock();
    chain = new UnreachableChain({
      network: 'TRC20',
      codec: createAddressCodec('TRC20', { mnemonic: 'test test test test test test test test test test test junk' }),
      clock,
      blockIntervalMs: 0,
      finalityDepth: 3,
    });
    await chain.init();
    const adapters = new Map<NetworkCode, ChainAdapter>([['TRC20', chain]]);
    actors = new WithdrawalActors({ orm, logger: pino({ level: 'silent' }), clock, adapters, livemode: false });
    const whitelist = new Whitelist({ orm, clock, adapters });
    withdrawals = new Withdrawals({ orm, logger: pino({ level: 'silent' }), clock, actors, adapters, whitelist, livemode: false, pollIntervalMs: 50 });
    const repo = new NetworkSettingsRepo(() => new Map());
    await repo.seed(orm.em.fork(), [{ code: 'TRC20', enabled: true, buyerNetworkFee: '1', withdrawalFee: '1', minInvoice: '1', minWithdrawal: '1', requiredConfirmations: 3 }], clock.now());
    network = (await repo.get(orm.em.fork(), 'TRC20'))!;
    const em = orm.em.fork();
    merchantId = (await new MerchantsRepo(new SecretBox(randomBytes(32))).create(em, { name: 'Resign shop', webhookUrl: null, platformFeePercent: '1' }, clock.now())).merchant.id;
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

  const row = async (uuid: string) =>
    (
      await orm.em
        .fork()
        .execute<{ latest: string | null; expired: string | null; attempt: number }[]>(
          `select signed_meta->>'latest_tx_hash' as latest, signed_meta->>'expired_tx_hashes' as expired, payout_attempt as attempt from withdrawals where uuid = ?`,
          [uuid],
        )
    )[0]!;

  it('eight signing steps asking to replace the same expired transaction: one new signature, all get it; a transaction that is not expired is never replaced', async () => {
    const { row: w } = await withdrawals.create(merchantId, { network: 'TRC20', address: payee, amount: '10' }, [network]);
    await eventually(async () => (chain.broadcasts > 0 ? true : undefined), 10_000, 'the broadcast to be tried');
    const first = await row(w.uuid);
    expect(first).toMatchObject({ expired: null, attempt: 0 });
    const expiredHash = first.latest!;

    const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(JSON.parse(line) as { msg: string; attempt?: number }) });
    const steps = new PayoutSteps({ orm, logger, clock, adapters: new Map([['TRC20', chain]]), settled: async () => undefined });
    const sign = (replacing: string): Promise<WithdrawalSignedPayout> =>
      toPromise(createActor(steps.actors().signPayout, { input: { id: w.uuid, network: 'TRC20', to: payee, amount: '9', replacing } }).start());

    // Not expired yet (the chain could still include it): asked to replace it, the stored one is kept.
    expect((await sign(expiredHash)).txHash).toBe(expiredHash);
    expect(await row(w.uuid)).toMatchObject({ latest: expiredHash, attempt: 0 });

    clock.advance(61_000);
    await chain.mine(3); // a final block stamped past its validity
    const [stored] = await orm.em.fork().execute<{ signed_raw: string; signed_meta: Record<string, string | number> }[]>('select signed_raw, signed_meta from withdrawals where uuid = ?', [w.uuid]);
    expect(await chain.payoutStatus({ txHash: expiredHash, raw: stored!.signed_raw, meta: stored!.signed_meta })).toEqual({ state: 'expired' });

    const results = await Promise.all(Array.from({ length: 8 }, () => sign(expiredHash)));
    const hashes = new Set(results.map((r) => r.txHash));
    expect(hashes.size).toBe(1);
    const [replacement] = [...hashes];
    expect(replacement).not.toBe(expiredHash);
    expect(logs.filter((l) => l.msg === 'payout signed and persisted')).toEqual([expect.objectContaining({ attempt: 1, expiredTxHash: expiredHash })]);
    expect(await row(w.uuid)).toEqual({ latest: replacement, expired: expiredHash, attempt: 1 });

    // Asked again for the old one, or for the new one that has not expired: nothing is signed.
    expect((await sign(expiredHash)).txHash).toBe(replacement);
    expect((await sign(replacement!)).txHash).toBe(replacement);
    expect(logs.filter((l) => l.msg === 'payout signed and persisted')).toHaveLength(1);
    expect(await row(w.uuid)).toMatchObject({ latest: replacement, attempt: 1 });
  });
});
