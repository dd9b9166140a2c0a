import { ConnectionException } from '@mikro-orm/core';
import type { BlockRef, ChainObservation } from '../types';
import { MemoryChain } from './__fixtures__/memory-chain';
import { RangeTooLargeError, ReorgBeyondFinalityError, RpcTimeoutError, RpcTransientError } from './errors';
import { BlockFollower } from './follower';
import type { FollowerOptions } from './types';

const A = '0xaaaa';
const B = '0xbbbb';

const running: BlockFollower[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((f) => f.stop()));
});

function follow(chain: MemoryChain, extra: Partial<FollowerOptions> = {}) {
  const seen: ChainObservation[] = [];
  const errors: Error[] = [];
  const follower = new BlockFollower({
    network: 'POLYGON',
    source: chain,
    from: null,
    confirmations: 3,
    pollIntervalMs: 2,
    backoff: { initialMs: 1, maxMs: 5 },
    sink: async (o) => void seen.push(o),
    onError: (e) => errors.push(e),
    ...extra,
  });
  running.push(follower);
  return { follower, seen, errors };
}

async function until(predicate: () => boolean, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 2));
  }
}

const of = <K extends ChainObservation['kind']>(seen: ChainObservation[], kind: K) => seen.filter((o): o is Extract<ChainObservation, { kind: K }> => o.kind === kind);
const tip = (seen: ChainObservation[]) => of(seen, 'block').at(-1)?.height;

describe('BlockFollower', () => {
  it('starts at the head, reports transfers, then finalizes at the required depth', async () => {
    const chain = new MemoryChain(new Set([A]));
    chain.mine(5);
    const { follower, seen } = follow(chain);
    await until(() => tip(seen) === 5);
    chain.mine(1, [
      { to: A, amount: '1.5' },
      { to: B, amount: '9' },
    ]);
    await until(() => tip(seen) === 6);
    expect(of(seen, 'transfer').map((t) => [t.to, t.amount, t.blockHeight])).toEqual([[A, '1.5', 6]]);
    expect(of(seen, 'finalize').some((f) => f.height >= 6)).toBe(false);
    chain.mine(2);
    await until(() => of(seen, 'finalize').some((f) => f.height === 6));
    expect(of(seen, 'finalize').at(-1)).toMatchObject({ height: 6, hash: chain.hashAt(6) });
    expect(follower.status()).toMatchObject({ state: 'running', head: 8, lag: 0, cursor: { height: 8 } });
    await follower.stop();
    expect(follower.status().state).toBe('stopped');
  });

  it('catches up from a saved cursor in ranges, every transfer once', async () => {
    const chain = new MemoryChain(new Set([A]));
    chain.mine(10);
    const from: BlockRef = { height: 10, hash: chain.hashAt(10) };
    for (let i = 0; i < 50; i++) chain.mine(20, [{ to: A, amount: String(i + 1) }]);
    const { follower, seen } = follow(chain, { from, maxRange: 100 });
    await until(() => tip(seen) === chain.headHeight);
    await follower.stop();
    expect(of(seen, 'transfer').map((t) => t.amount)).toEqual(Array.from({ length: 50 }, (_, i) => String(i + 1)));
    expect(chain.ranges.every(([a, b]) => b - a < 100)).toBe(true);
    expect(chain.ranges[0]).toEqual([11, 110]);
    // The historical part fetches 2 headers per range, not one per block: plus, for its timestamp,
    // the header of each block that holds a watched transfer (50 here, of 1000 blocks).
    expect(chain.calls.block).toBeLessThan(60 + 50);
    // Every transfer carries its own block's time (invoices judge "paid in time" by it).
    expect(of(seen, 'transfer').every((t) => t.blockTime.getTime() === 1_700_000_000_000 + t.blockHeight * 1000)).toBe(true);
    expect(of(seen, 'reorg')).toEqual([]);
  });

  it('in final ranges fetches the header of each block that holds a match, once, and no other: every transfer has its exact block time', async () => {
    const catchUp = async (paidBlocks: number) => {
      const chain = new MemoryChain(new Set([A]));
      chain.mine(10);
      const from: BlockRef = { height: 10, hash: chain.hashAt(10) };
      // 50 batches of 20 blocks; the first `paidBlocks` batches end with a block holding two matches.
      for (let i = 0; i < 50; i++)
        chain.mine(
          20,
          i < paidBlocks
            ? [
                { to: A, amount: `${i + 1}` },
                { to: A, amount: `${i + 1}.5` },
              ]
            : [],
        );
      const { follower, seen } = follow(chain, { from, maxRange: 100 });
      await until(() => tip(seen) === chain.headHeight);
      await follower.stop();
      return { calls: chain.calls.block, transfers: of(seen, 'transfer') };
    };
    const none = await catchUp(0);
    const ten = await catchUp(10);
    const real = (height: number) => 1_700_000_000_000 + height * 1000;
    // At most one header per block holding matches (two matches, one header; none where a range's
    // own first or last header is that block); no watcher is asked anything.
    expect(ten.calls).toBeGreaterThan(none.calls);
    expect(ten.calls).toBeLessThanOrEqual(none.calls + 10);
    expect(ten.transfers).toHaveLength(20);
    for (const t of ten.transfers) expect(t.blockTime.getTime()).toBe(real(t.blockHeight));
  });

  it('walks back to the common ancestor on a reorg: the vanished transfer is not re-emitted, the new one once', async () => {
    const chain = new MemoryChain(new Set([A, B]));
    chain.mine(10);
    const { follower, seen } = follow(chain, { confirmations: 6 });
    await until(() => tip(seen) === 10);
    chain.mine(1, [{ to: A, amount: '1' }]);
    chain.mine(2);
    await until(() => tip(seen) === 13);
    chain.rewind(3); // back to 10
    chain.mine(1);
    chain.mine(1, [{ to: B, amount: '2' }]);
    chain.mine(3);
    await until(() => tip(seen) === 15);
    await follower.stop();
    expect(of(seen, 'reorg')).toEqual([{ kind: 'reorg', network: 'POLYGON', commonAncestor: { height: 10, hash: chain.hashAt(10) }, depth: 3, cursor: { height: 10, hash: chain.hashAt(10) } }]);
    const transfers = of(seen, 'transfer').map((t) => `${t.to}@${t.blockHeight}`);
    expect(transfers).toEqual([`${A}@11`, `${B}@12`]);
    const reorgAt = seen.findIndex((o) => o.kind === 'reorg');
    expect(seen.slice(reorgAt).filter((o) => o.kind === 'transfer')).toHaveLength(1);
  });

  it('detects a replaced tip at the same height', async () => {
    const chain = new MemoryChain(new Set([A]));
    chain.mine(3);
    const { follower, seen } = follow(chain, { confirmations: 5 });
    await until(() => tip(seen) === 3);
    chain.mine(5);
    await until(() => tip(seen) === 8);
    chain.rewind(2);
    chain.mine(2, [{ to: A, amount: '3' }]);
    await until(() => of(seen, 'transfer').length === 1);
    await follower.stop();
    expect(of(seen, 'reorg')[0]).toMatchObject({ commonAncestor: { height: 6 }, depth: 2 });
  });

  it('stops with ReorgBeyondFinalityError when a final block is replaced', async () => {
    const chain = new MemoryChain(new Set([A]));
    chain.mine(5);
    const { follower, seen, errors } = follow(chain, { confirmations: 3 });
    await until(() => tip(seen) === 5);
    chain.mine(5);
    await until(() => of(seen, 'finalize').some((f) => f.height === 8));
    chain.rewind(4);
    chain.mine(6, [{ to: A, amount: '5' }]);
    await until(() => follower.status().state === 'failed');
    expect(errors.at(-1)).toBeInstanceOf(ReorgBeyondFinalityError);
    expect(follower.status().lastError).toMatchObject({ name: 'ReorgBeyondFinalityError' });
    expect(of(seen, 'reorg')).toEqual([]);
    expect(of(seen, 'transfer')).toEqual([]);
    await follower.stop();
  });

  it('resuming from a cursor that was reorged away during downtime rolls back to the anchor', async () => {
    const chain = new MemoryChain(new Set([A]));
    chain.mine(20);
    const from = { height: 20, hash: chain.hashAt(20) };
    chain.rewind(2);
    chain.mine(4, [{ to: A, amount: '7' }]);
    const { follower, seen } = follow(chain, { from, confirmations: 5 });
    await until(() => tip(seen) === 22);
    await follower.stop();
    expect(of(seen, 'reorg')).toEqual([{ kind: 'reorg', network: 'POLYGON', commonAncestor: { height: 16, hash: chain.hashAt(16) }, depth: 4, cursor: { height: 16, hash: chain.hashAt(16) } }]);
    expect(of(seen, 'transfer').map((t) => t.blockHeight)).toEqual([19]);
  });

  it('resuming from a reorged-away cursor on a source that keeps replaced blocks walks their parents to the exact ancestor', async () => {
    const chain = new MemoryChain(new Set([A]), { keepReplaced: true });
    chain.mine(20, [{ to: A, amount: '1' }]);
    const from = { height: 20, hash: chain.hashAt(20) };
    chain.rewind(2);
    chain.mine(4, [{ to: A, amount: '7' }]);
    const { follower, seen } = follow(chain, { from, confirmations: 5 });
    await until(() => tip(seen) === 22);
    await follower.stop();
    // The window held only the anchor (16) and the tip (20): 20 and 19 were replaced, 18 was not.
    expect(of(seen, 'reorg')).toEqual([{ kind: 'reorg', network: 'POLYGON', commonAncestor: { height: 18, hash: chain.hashAt(18) }, depth: 2, cursor: { height: 18, hash: chain.hashAt(18) } }]);
    expect(of(seen, 'transfer').map((t) => [t.blockHeight, t.amount])).toEqual([[19, '7']]);
  });

  it("an idle follower wakes at the source's change (BlockSource.changed), not its poll; syncedUntil needs a source that vouches", async () => {
    const chain = new MemoryChain(new Set([A]), { signalChanges: true });
    chain.mine(3);
    const { follower, seen } = follow(chain, { pollIntervalMs: 60_000 });
    await until(() => tip(seen) === 3);
    await new Promise((r) => setTimeout(r, 30)); // asleep for a minute unless woken
    chain.mine(1, [{ to: A, amount: '2' }]);
    await until(() => tip(seen) === 4, 1000);
    expect(of(seen, 'transfer').map((t) => t.amount)).toEqual(['2']);
    expect(follower.syncedUntil()).toBeNull(); // MemoryChain cannot vouch for a time
    await follower.stop(); // ends the pause at once
    expect(follower.status().state).toBe('stopped');
  });

  it('resuming with the saved last final block: a chain that replaced it (reorg while down) fails, emitting nothing', async () => {
    const chain = new MemoryChain(new Set([A]));
    chain.mine(20);
    const from = { height: 20, hash: chain.hashAt(20) };
    const finalized = { height: 18, hash: chain.hashAt(18) };
    chain.rewind(5); // below the final block 18
    chain.mine(8, [{ to: A, amount: '7' }]);
    const { follower, seen, errors } = follow(chain, { from, finalized, confirmations: 3 });
    await until(() => follower.status().state === 'failed');
    expect(errors.at(-1)).toBeInstanceOf(ReorgBeyondFinalityError);
    expect(errors.at(-1)).toMatchObject({ code: 'reorg_beyond_finality', details: { finalizedHeight: 18, finalizedHash: finalized.hash, tipHeight: 20 } });
    expect(seen).toEqual([]);
    await follower.stop();
  });

  it('resuming with the saved last final block still on the chain: a reorg above it during downtime rolls back normally', async () => {
    const chain = new MemoryChain(new Set([A]));
    chain.mine(20);
    const from = { height: 20, hash: chain.hashAt(20) };
    const finalized = { height: 18, hash: chain.hashAt(18) };
    chain.rewind(2);
    chain.mine(4, [{ to: A, amount: '7' }]);
    const { follower, seen, errors } = follow(chain, { from, finalized, confirmations: 3 });
    await until(() => tip(seen) === 22);
    await follower.stop();
    expect(errors).toEqual([]);
    expect(of(seen, 'reorg')).toEqual([{ kind: 'reorg', network: 'POLYGON', commonAncestor: { height: 18, hash: finalized.hash }, depth: 2, cursor: { height: 18, hash: finalized.hash } }]);
    expect(of(seen, 'transfer').map((t) => t.blockHeight)).toEqual([19]);
  });

  it('retries RPC failures with backoff and halves the range the provider refuses', async () => {
    const chain = new MemoryChain(new Set([A]));
    chain.mine(300, [{ to: A, amount: '1' }]);
    chain.failNext = [() => new RpcTransientError('down'), () => new RangeTooLargeError('too many blocks')];
    const { follower, seen, errors } = follow(chain, { from: { height: 0, hash: chain.hashAt(0) }, maxRange: 200 });
    await until(() => tip(seen) === 300);
    await follower.stop();
    expect(errors.map((e) => e.name)).toEqual(['RpcTransientError', 'RangeTooLargeError']);
    expect(follower.status()).toMatchObject({ consecutiveFailures: 0, maxRange: 100, lastError: { name: 'RangeTooLargeError' } });
    expect(of(seen, 'transfer')).toHaveLength(1);
  });

  it('a timeout is retried on the same range; only three in a row narrow it; a narrowed range grows back as ranges succeed', async () => {
    const catchUp = async (timeouts: number) => {
      const chain = new MemoryChain(new Set([A]));
      chain.mine(600, [{ to: A, amount: '1' }]);
      chain.failNext = Array.from({ length: timeouts }, () => () => new RpcTimeoutError('eth_getLogs timed out', 100));
      const growth = { growAfter: 2, forgetAfter: 2, timeoutsAsRefusal: 3 };
      const { follower, seen, errors } = follow(chain, { from: { height: 0, hash: chain.hashAt(0) }, maxRange: 100, rangeGrowth: growth });
      await until(() => tip(seen) === 600);
      await follower.stop();
      expect(errors.map((e) => e.name)).toEqual(Array(timeouts).fill('RpcTimeoutError'));
      expect(of(seen, 'transfer')).toHaveLength(1);
      return { sizes: chain.ranges.map(([a, b]) => b - a + 1), status: follower.status() };
    };
    const twice = await catchUp(2);
    expect(twice.sizes.slice(0, 5)).toEqual([100, 100, 100, 100, 100]);
    const thrice = await catchUp(3);
    expect(thrice.sizes.slice(0, 4)).toEqual([50, 50, 100, 100]);
    expect(thrice.status.maxRange).toBe(100);
  });

  it('redelivers a step whose sink failed (the database away: a retryable class), without skipping anything', async () => {
    const chain = new MemoryChain(new Set([A]));
    chain.mine(3);
    let failOnce = true;
    const seen: ChainObservation[] = [];
    const follower = new BlockFollower({
      network: 'POLYGON',
      source: chain,
      from: { height: 3, hash: chain.hashAt(3) },
      confirmations: 2,
      pollIntervalMs: 2,
      backoff: { initialMs: 1, maxMs: 2 },
      sink: async (o) => {
        if (o.kind === 'block' && failOnce) {
          failOnce = false;
          throw new ConnectionException(Object.assign(new Error('db down'), { code: '57P01' }));
        }
        seen.push(o);
      },
    });
    chain.mine(1, [{ to: A, amount: '2' }]);
    await until(() => tip(seen) === 4);
    await follower.stop();
    expect(seen.map((o) => o.kind)).toEqual(['transfer', 'transfer', 'block', 'finalize']);
  });
  it('a sink failure of no retryable class (a recording bug) stops it: failed, passed on once, never stepped again', async () => {
    const chain = new MemoryChain(new Set([A]));
    chain.mine(3);
    const errors: Error[] = [];
    let calls = 0;
    const follower = new BlockFollower({
      network: 'POLYGON',
      source: chain,
      from: { height: 3, hash: chain.hashAt(3) },
      confirmations: 2,
      pollIntervalMs: 2,
      backoff: { initialMs: 1, maxMs: 2 },
      onError: (e) => errors.push(e),
      sink: async (o) => {
        calls += 1;
        if (o.kind === 'transfer') throw new TypeError('a bug');
      },
    });
    chain.mine(1, [{ to: A, amount: '2' }]);
    await until(() => follower.status().state === 'failed');
    const seen = calls;
    await new Promise((r) => setTimeout(r, 50));
    expect(calls).toBe(seen);
    expect(errors.map((e) => e.name)).toEqual(['TypeError']);
    expect(follower.status()).toMatchObject({ state: 'failed', consecutiveFailures: 1, lastError: { name: 'TypeError' } });
    expect(follower.loopStats()).toMatchObject({ state: 'failed', retries: 0, errors: { TypeError: 1 } });
    await follower.stop();
  });
});
