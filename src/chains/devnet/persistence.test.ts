import type { MikroORM } from '@mikro-orm/postgresql';
import { createTestDatabase, type TestDatabase } from '../../../test/support/database';
import { openDatabase } from '../../store/orm';
import { RawSql } from '../../store/raw-sql';
import type { NetworkCode } from '../../domain/networks';
import { createAddressCodec } from '../codecs';
import type { ChainWatch } from '../types';
import { DevnetAdapter } from './adapter';
import { PgDevnetStore } from './pg-store';
import { CountingSet, manualClock, Recorder, type ManualClock } from './testing';

/**
 * The devnet chains in PostgreSQL (real database, the daemon's store): a second adapter on the
 * same database, as a standby after a failover, continues the very same chain.
 */
const MNEMONIC = 'test test test test test test test test test test test junk';
let db: TestDatabase;
let orm: MikroORM;
let store: PgDevnetStore;
const opened: DevnetAdapter[] = [];
const watches: ChainWatch[] = [];

async function devnet(network: NetworkCode, extra: { finalityDepth?: number; memoryBlocks?: number; clock?: ManualClock } = {}): Promise<DevnetAdapter> {
  const adapter = new DevnetAdapter({ network, codec: createAddressCodec(network, { mnemonic: MNEMONIC }), clock: manualClock(), blockIntervalMs: 0, store, ...extra });
  opened.push(adapter);
  await adapter.init();
  return adapter;
}

async function sql<T>(text: string, values: unknown[] = []): Promise<T[]> {
  return orm.em.fork().getConnection().execute<T[]>(text, values);
}

beforeAll(async () => {
  db = await createTestDatabase('cp_devnet_store');
  orm = await openDatabase({ clientUrl: db.url });
  store = new PgDevnetStore(new RawSql(orm));
});
afterEach(async () => {
  await Promise.all(watches.splice(0).map((w) => w.stop()));
  await Promise.all(opened.splice(0).map((a) => a.close()));
  await sql('truncate devnet_chains, devnet_blocks, devnet_transfers, devnet_mempool');
});
afterAll(async () => {
  await orm?.close();
  await db?.drop();
});

describe('devnet chains in the database', () => {
  it('a second daemon on the same database continues the chain: same blocks, a cursor resumes with catch-up', async () => {
    const first = await devnet('TRC20');
    const to = first.deriveDepositAddress(3);
    await first.mine(2);
    const cursor = { height: 2, hash: first.head().hash };
    const paid = await first.pay({ to, amount: '12.345678' });
    await first.mine(2);
    const head = first.head();
    // No close(): as after SIGKILL. Everything acknowledged is committed.
    const second = await devnet('TRC20');
    expect(second.head()).toEqual(head);
    expect(await second.block(3)).toEqual(await first.block(3));
    const rec = new Recorder();
    watches.push(second.watch({ from: cursor, watched: new CountingSet(new Set([to])), sink: rec.sink }));
    await rec.until(() => rec.lastBlock() === 5);
    expect(rec.of('transfer')).toEqual([expect.objectContaining({ txHash: paid.txHash, blockHeight: 3, amount: '12.345678', to })]);
    expect(await second.mine(1)).toMatchObject({ head: 6 });
    const third = await devnet('TRC20');
    expect(third.head().head).toBe(6);
    expect((await third.block(5))!.hash).toBe(head.hash);
  });

  it('a stale writer never forks the chain: its write is refused, it re-reads and mines on top', async () => {
    const a = await devnet('POLYGON');
    const b = await devnet('POLYGON');
    await a.mine(2);
    // b still holds block 0 as its head: its compare-and-swap fails, it re-reads and retries once.
    expect(await b.mine(1)).toMatchObject({ head: 3 });
    expect((await b.block(2))!.hash).toBe((await a.block(2))!.hash);
    const paid = await a.pay({ to: a.deriveDepositAddress(0), amount: '1' });
    expect(paid.blockHeight).toBe(4);
    const rows = await sql<{ height: string; canonical: boolean }>(`select height, canonical from devnet_blocks where network = 'POLYGON' order by height`);
    expect(rows.map((r) => [Number(r.height), r.canonical])).toEqual([0, 1, 2, 3, 4].map((h) => [h, true]));
  });

  it('a cursor on a branch orphaned before the restart walks back to the common ancestor', async () => {
    const first = await devnet('TRC20');
    const to = first.deriveDepositAddress(0);
    await first.mine(3);
    const paid = await first.pay({ to, amount: '1' }); // block 4
    const cursor = { height: 4, hash: first.head().hash }; // the watcher saw the payment, then died
    await first.reorg(2);
    const second = await devnet('TRC20');
    expect(second.head()).toEqual(first.head());
    const rec = new Recorder();
    watches.push(second.watch({ from: cursor, watched: new CountingSet(new Set([to])), sink: rec.sink }));
    await rec.until(() => rec.lastBlock() === 5);
    // Exact: the orphaned cursor's parents are read from the database (DevnetBlockSource.blockByHash).
    expect(rec.seen[0]).toEqual({
      kind: 'reorg',
      network: 'TRC20',
      commonAncestor: { height: 2, hash: (await first.block(2))!.hash },
      depth: 2,
      cursor: { height: 2, hash: (await first.block(2))!.hash },
    });
    expect(rec.of('transfer')).toEqual([]);
    expect(paid.blockHeight).toBe(4);
  });

  it('the mempool survives a restart; a payout mined below the memory window still reports its confirmations', async () => {
    const chain = await devnet('POLYGON', { memoryBlocks: 8, finalityDepth: 3 });
    const signed = await chain.signPayout({ id: 'w-persist', to: chain.deriveDepositAddress(4), amount: '25' });
    await chain.broadcastPayout(signed);
    const restarted = await devnet('POLYGON', { memoryBlocks: 8, finalityDepth: 3 });
    expect(await restarted.payoutStatus(signed)).toEqual({ state: 'pending' });
    await restarted.mine(1);
    await restarted.mine(600);
    expect(await restarted.payoutStatus(signed)).toEqual({ state: 'mined', blockHeight: 1, confirmations: 601 });
    await restarted.broadcastPayout(signed); // mined long ago (found in the database): a no-op
    expect(await sql(`select tx_hash from devnet_mempool`)).toEqual([]);
    expect((await restarted.block(1))!.transfers).toBe(1);
  });

  it('the validity of a payout is stored with the mempool: after a restart it still expires, leaves the mempool and is never mined', async () => {
    const clock = manualClock();
    const chain = await devnet('TRC20', { finalityDepth: 3, clock });
    const signed = await chain.signPayout({ id: 'w-valid', to: chain.deriveDepositAddress(5), amount: '3' });
    await chain.broadcastPayout(signed);
    expect(await sql(`select tx_hash, valid_until_ms::text as v from devnet_mempool`)).toEqual([{ tx_hash: signed.txHash, v: String(signed.meta.validUntilMs) }]);
    clock.advance(61_000);
    const restarted = await devnet('TRC20', { finalityDepth: 3, clock });
    expect(await restarted.payoutStatus(signed)).toEqual({ state: 'pending' }); // no block past it yet
    await restarted.mine(3);
    expect(await sql(`select tx_hash from devnet_mempool`)).toEqual([]);
    expect(await sql(`select tx_hash from devnet_transfers where tx_hash = ?`, [signed.txHash])).toEqual([]);
    expect(await restarted.payoutStatus(signed)).toEqual({ state: 'expired' });
  });

  it('a watch catches up from below the memory window, page by page, and walks back from a forgotten orphan', async () => {
    const chain = await devnet('BEP20', { memoryBlocks: 8, finalityDepth: 3 });
    const to = chain.deriveDepositAddress(0);
    await chain.mine(4);
    const orphaned = { height: 4, hash: chain.head().hash };
    const ancestor = (await chain.block(2))!.hash;
    await chain.reorg(2); // 3 and 4 orphaned, head 5
    const paid = await chain.pay({ to, amount: '2' }); // block 6
    await chain.mine(700);
    const rec = new Recorder();
    watches.push(chain.watch({ from: orphaned, watched: new CountingSet(new Set([chain.normalizeAddress(to)])), sink: rec.sink }));
    await rec.until(() => rec.lastBlock() === 706, 20_000);
    expect(rec.seen[0]).toEqual({ kind: 'reorg', network: 'BEP20', commonAncestor: { height: 2, hash: ancestor }, depth: 2, cursor: { height: 2, hash: ancestor } });
    // Catch-up in ranges (at most 500 blocks each) up to the head, then finality 3 below it.
    const heights = rec.of('block').map((b) => b.height);
    expect(heights.length).toBeLessThan(10);
    expect(heights.every((h, i) => i === 0 || h - heights[i - 1]! <= 500)).toBe(true);
    expect(rec.of('finalize').at(-1)!.height).toBe(704);
    expect(rec.of('transfer')).toEqual([expect.objectContaining({ txHash: paid.txHash, blockHeight: 6, amount: '2', blockTime: expect.any(Date) })]);
    // Every reported block is the canonical one at its height: old pages and the memory window alike.
    for (const b of rec.of('block')) expect((await chain.block(b.height))!.hash).toBe(b.hash);
  });

  it('a write that fails mid-transaction changes nothing; the next one re-reads and continues', async () => {
    const chain = await devnet('ARBITRUM');
    const to = chain.deriveDepositAddress(1);
    await chain.mine(2);
    const before = chain.head();
    // The block row is inserted, then its transfer is refused: the whole write rolls back.
    await sql(`alter table devnet_transfers add constraint devnet_test_refuse check (amount < 0) not valid`);
    try {
      await expect(chain.pay({ to, amount: '1' })).rejects.toThrow(/devnet_test_refuse/);
    } finally {
      await sql(`alter table devnet_transfers drop constraint devnet_test_refuse`);
    }
    expect(chain.head()).toEqual(before);
    expect(await sql(`select head_height::int as h from devnet_chains where network = 'ARBITRUM'`)).toEqual([{ h: 2 }]);
    expect(await sql(`select hash from devnet_blocks where network = 'ARBITRUM' and height > 2`)).toEqual([]);
    const paid = await chain.pay({ to, amount: '1' });
    expect(paid.blockHeight).toBe(3);
    expect((await chain.block(3))!.parentHash).toBe(before.hash);
  });
});
