import type { MikroORM } from '@mikro-orm/postgresql';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { openDatabase } from '../../store/orm';
import { RawSql } from '../../store/raw-sql';
import type { NetworkCode } from '../../domain/networks';
import { createAddressCodec } from '../codecs';
import { DevnetAdapter, type DevnetWatch } from './adapter';
import { PgDevnetStore } from './pg-store';
import { CountingSet, manualClock, Recorder, type ManualClock } from './testing';

/**
 * The devnet under the live families' block follower, on a chain stored in PostgreSQL: the same
 * reorg walk-back, catch-up in ranges and finality checks a live chain gets, plus the devnet's
 * own rules (changed() wakes the follower at once; TON and SOLANA never reorganise).
 */
const MNEMONIC = 'test test test test test test test test test test test junk';
let db: TestDatabase;
let orm: MikroORM;
let store: PgDevnetStore;
const opened: DevnetAdapter[] = [];
const watches: DevnetWatch[] = [];

async function devnet(network: NetworkCode, extra: { finalityDepth?: number; clock?: ManualClock } = {}): Promise<DevnetAdapter> {
  const adapter = new DevnetAdapter({ network, codec: createAddressCodec(network, { mnemonic: MNEMONIC }), clock: manualClock(), blockIntervalMs: 0, store, retryDelayMs: 5, ...extra });
  opened.push(adapter);
  await adapter.init();
  return adapter;
}

const steps = (rec: Recorder) => rec.seen.map((o) => `${o.kind}:${o.kind === 'reorg' ? o.commonAncestor.height : 'height' in o ? o.height : o.blockHeight}`);

beforeAll(async () => {
  db = await createTestDatabase('cp_devnet_follower');
  orm = await openDatabase({ clientUrl: db.url });
  store = new PgDevnetStore(new RawSql(orm));
});
afterEach(async () => {
  await Promise.all(watches.splice(0).map((w) => w.stop()));
  await Promise.all(opened.splice(0).map((a) => a.close()));
  await orm.em.fork().getConnection().execute('truncate devnet_chains, devnet_blocks, devnet_transfers, devnet_mempool');
});
afterAll(async () => {
  await orm?.close();
  await db?.drop();
});

describe('devnet under the block follower', () => {
  it('sees a new block at once (changed(), not the 1 s poll), walks a reorg back to the exact ancestor and never re-emits a vanished transfer', async () => {
    const chain = await devnet('BEP20', { finalityDepth: 5 });
    const to = chain.deriveDepositAddress(0);
    const rec = new Recorder();
    const paid: string[] = [];
    watches.push(chain.watch({ from: null, watched: new CountingSet(new Set([to.toLowerCase()])), sink: rec.sink }));
    await rec.until(() => rec.lastBlock() === 0);
    // Idle, each new block is seen well within the 1 s poll (without changed() a wait is anywhere in it).
    const latencies: number[] = [];
    for (const height of [1, 2, 3]) {
      await new Promise((r) => setTimeout(r, 100)); // the follower is idle (asleep) again
      if (height === 1) paid.push((await chain.pay({ to, amount: '4' })).txHash);
      else await chain.mine(1);
      const written = Date.now();
      await rec.until(() => rec.lastBlock() === height, 5000);
      latencies.push(Date.now() - written);
    }
    expect(Math.max(...latencies)).toBeLessThan(250);

    const ancestor = (await chain.block(0))!.hash;
    await chain.reorg(3); // 1-3 replaced by 1'-4'
    await rec.until(() => rec.lastBlock() === 4);
    const reorg = rec.of('reorg');
    expect(reorg).toEqual([{ kind: 'reorg', network: 'BEP20', commonAncestor: { height: 0, hash: ancestor }, depth: 3, cursor: { height: 0, hash: ancestor } }]);
    expect(rec.of('transfer').map((t) => t.txHash)).toEqual(paid); // only the first sighting
    // After the reorg, the new branch is scanned from the ancestor in one step.
    expect(steps(rec).slice(steps(rec).indexOf('reorg:0'))).toEqual(['reorg:0', 'block:4']);
    expect(rec.of('block').at(-1)!.hash).toBe(chain.head().hash);
  });

  it('after a restart catches up from its cursor in ranges: every transfer once, with its own block time, finality at the end', async () => {
    const clock = manualClock();
    const first = await devnet('TRC20', { finalityDepth: 4, clock });
    const to = first.deriveDepositAddress(2);
    await first.mine(3);
    const cursor = { height: 3, hash: first.head().hash };
    const paid: string[] = [];
    for (let i = 0; i < 6; i++) {
      await first.mine(199);
      clock.advance(1000);
      paid.push((await first.pay({ to, amount: String(i + 1) })).txHash);
    }
    const head = first.head().head; // 3 + 6 * 200
    await first.close();

    const second = await devnet('TRC20', { finalityDepth: 4, clock });
    const rec = new Recorder();
    watches.push(second.watch({ from: cursor, watched: new CountingSet(new Set([to])), sink: rec.sink }));
    await rec.until(() => rec.lastBlock() === head, 20_000);
    expect(rec.of('transfer').map((t) => t.txHash)).toEqual(paid);
    for (const t of rec.of('transfer')) expect(t.blockTime).toEqual((await second.block(t.blockHeight))!.timestamp);
    const blocks = rec.of('block').map((b) => b.height);
    expect(blocks.length).toBeLessThanOrEqual(4); // ranges of up to 500 blocks, not one step per block
    expect(rec.of('reorg')).toEqual([]);
    expect(rec.of('finalize').at(-1)).toEqual({
      kind: 'finalize',
      network: 'TRC20',
      height: head - 3,
      hash: (await second.block(head - 3))!.hash,
      cursor: { height: head - 3, hash: (await second.block(head - 3))!.hash },
    });
  });

  it('halts (ReorgBeyondFinalityError, nothing emitted) when its saved final block was replaced in the stored chain while it was down', async () => {
    const chain = await devnet('POLYGON', { finalityDepth: 3 });
    const rec = new Recorder();
    watches.push(chain.watch({ from: null, watched: new CountingSet(new Set()), sink: rec.sink }));
    await chain.mine(8);
    await rec.until(() => rec.of('finalize').at(-1)?.height === 6);
    const cursor = { height: 8, hash: chain.head().hash };
    const finalized = { height: 6, hash: rec.of('finalize').at(-1)!.hash };
    await watches.pop()!.stop();
    await chain.close();

    // Another writer with a wider window (as a daemon started with more confirmations) replaces 4-8.
    const wide = await devnet('POLYGON', { finalityDepth: 20 });
    await wide.reorg(5);
    await wide.close();

    const restarted = await devnet('POLYGON', { finalityDepth: 3 });
    const after = new Recorder();
    const errors: Error[] = [];
    watches.push(restarted.watch({ from: cursor, finalized, watched: new CountingSet(new Set()), sink: after.sink, onError: (e) => errors.push(e) }));
    await new Promise((r) => setTimeout(r, 100));
    expect(errors).toEqual([expect.objectContaining({ name: 'ReorgBeyondFinalityError', code: 'reorg_beyond_finality', retryable: false })]);
    expect(after.seen).toEqual([]);
    expect(watches.at(-1)!.status().state).toBe('failed');
  });

  it('vouches for now only at its head with everything delivered (syncedUntil), and not once stopped', async () => {
    const clock = manualClock();
    const chain = await devnet('ARBITRUM', { clock });
    const rec = new Recorder();
    const watch = chain.watch({ from: null, watched: new CountingSet(new Set()), sink: rec.sink });
    watches.push(watch);
    await rec.until(() => rec.lastBlock() === 0);
    await new Promise((r) => setTimeout(r, 20));
    clock.advance(60_000);
    expect(watch.syncedUntil()).toEqual(clock.now());
    await chain.mine(1);
    await rec.until(() => rec.lastBlock() === 1);
    await new Promise((r) => setTimeout(r, 20));
    expect(watch.syncedUntil()).toEqual(clock.now());
    await watch.stop();
    expect(watch.syncedUntil()).toBeNull();
  });

  it('refuses a reorg on TON and SOLANA (their families have none); EVM and TRON keep them', async () => {
    for (const network of ['TON', 'SOLANA'] as const) {
      const chain = await devnet(network);
      await chain.mine(5);
      const head = chain.head();
      await expect(chain.reorg(1)).rejects.toMatchObject({ name: 'ValidationError', code: 'reorg_unsupported', field: 'network' });
      expect(chain.head()).toEqual(head);
    }
    for (const network of ['TRC20', 'BEP20'] as const) {
      const chain = await devnet(network);
      await chain.mine(5);
      await expect(chain.reorg(1)).resolves.toMatchObject({ head: 6 });
    }
  });
});
