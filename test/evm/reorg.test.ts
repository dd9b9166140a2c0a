import type { Address } from 'viem';
import type { EvmAdapter, EvmWatch } from '../../src/chains/evm';
import { fromBaseUnits } from '../../src/chains/amount';
import { ReorgBeyondFinalityError } from '../../src/chains/sync';
import type { ChainCursor } from '../../src/chains/types';
import { testAdapter, testCodec } from './support/adapter';
import { startHardhatNode, type HardhatNode } from './support/hardhat-node';
import { Observed, watchedSet } from './support/observations';
import { startRpcProxy, type RpcProxy } from './support/rpc-proxy';
import { TestChain } from './support/test-chain';

let node: HardhatNode;
let proxy: RpcProxy;
let chain: TestChain;
let token: Address;
const codec = testCodec();
const deposit = Array.from({ length: 5 }, (_, i) => codec.deriveDepositAddress(i));
const running: Array<{ adapter: EvmAdapter; watch: EvmWatch }> = [];

beforeAll(async () => {
  node = await startHardhatNode();
  proxy = await startRpcProxy(node.url);
  chain = new TestChain(node.url);
  token = await chain.deployToken(6);
  await chain.mint(token, chain.funder.address, 10n ** 15n);
});

afterEach(async () => {
  for (const r of running.splice(0)) {
    await r.watch.stop();
    await r.adapter.close();
  }
});

afterAll(async () => {
  await proxy?.close();
  await node?.stop();
});

async function watch(from: ChainCursor | null, extra: { confirmations?: number; maxBlockRange?: number } = {}) {
  const adapter = await testAdapter({ rpcUrl: proxy.url, tokenAddress: token, confirmations: 10, ...extra });
  const seen = new Observed();
  const w = adapter.watch({ from, watched: watchedSet(deposit), sink: seen.sink, onError: seen.onError });
  running.push({ adapter, watch: w });
  return { seen, watch: w };
}

const at = async (hash: `0x${string}`) => Number((await chain.public.getTransactionReceipt({ hash })).blockNumber);

describe('EVM adapter: reorgs and catch-up on a hardhat node', () => {
  it('a reorg (evm_revert + a different chain) rolls back to the common ancestor: A retracted, B emitted once', async () => {
    const { seen, watch: w } = await watch(null);
    const base = await chain.head();
    await seen.until(() => seen.tip() === base, 'the start block');
    const snapshot = await chain.snapshot();
    const ancestor = { height: base, hash: await chain.blockHash(base) };

    const txA = await chain.transfer(token, deposit[0]!, 1_000_000n);
    await chain.mine(2);
    await seen.until(() => seen.tip() === base + 3, 'A and two blocks');
    expect(seen.of('transfer').map((t) => t.txHash)).toEqual([txA]);

    await chain.revert(snapshot);
    await chain.mine(1);
    const txB = await chain.transfer(token, deposit[1]!, 2_000_000n);
    const heightB = await at(txB);
    await chain.mine(3);
    const head = await chain.head();
    await seen.until(() => seen.tip() === head && seen.of('transfer').length === 2, 'the new branch');

    expect(seen.of('reorg')).toEqual([{ kind: 'reorg', network: 'POLYGON', commonAncestor: ancestor, depth: 3, cursor: ancestor }]);
    const reorgAt = seen.all.findIndex((o) => o.kind === 'reorg');
    const after = seen.all.slice(reorgAt + 1);
    expect(after.filter((o) => o.kind === 'transfer')).toMatchObject([{ txHash: txB, blockHeight: heightB, amount: '2' }]);
    expect(seen.of('transfer').filter((t) => t.txHash === txA)).toHaveLength(1); // only before the reorg
    // Nothing at or below the ancestor is emitted again; blocks continue from ancestor + 1.
    expect(after.filter((o) => o.kind === 'block').every((o) => o.kind === 'block' && o.height > base)).toBe(true);
    expect(w.status()).toMatchObject({ state: 'running', head, lag: 0, cursor: { height: head } });
    expect(seen.errors).toEqual([]);
  });

  it('catch-up: stopped, 50 blocks with transfers mined, resumed from the saved cursor: each transfer once, in ranges', async () => {
    const first = await watch(null, { maxBlockRange: 8, confirmations: 4 });
    const start = await chain.head();
    await first.seen.until(() => first.seen.tip() === start, 'the start block');
    await first.watch.stop();
    const last = first.seen.of('block').at(-1)!;
    const cursor = { height: last.height, hash: last.hash };

    const sent: string[] = [];
    for (let i = 0; i < 50; i++) sent.push(await chain.transfer(token, deposit[i % deposit.length]!, BigInt(10_000 + i)));
    const head = await chain.head();
    expect(head).toBe(start + 50);

    proxy.reset();
    const resumed = await watch(cursor, { maxBlockRange: 8, confirmations: 4 });
    await resumed.seen.until(() => resumed.seen.tip() === head, 'the head', 20_000);
    const transfers = resumed.seen.of('transfer');
    expect(transfers.map((t) => t.txHash)).toEqual(sent);
    expect(transfers.map((t) => t.amount)).toEqual(sent.map((_, i) => fromBaseUnits(BigInt(10_000 + i), 6)));
    expect(resumed.seen.of('reorg')).toEqual([]);
    // Scanned in contiguous ranges of at most 8 blocks, one eth_getLogs each, starting right after the cursor.
    const ranges = proxy.calls
      .filter((c) => c.method === 'eth_getLogs')
      .map((c) => {
        const f = c.params[0] as { fromBlock: string; toBlock: string };
        return [Number(f.fromBlock), Number(f.toBlock)] as const;
      });
    expect(ranges[0]![0]).toBe(cursor.height + 1);
    expect(ranges.at(-1)![1]).toBe(head);
    ranges.forEach(([a, b], i) => {
      expect(b - a).toBeLessThan(8);
      if (i > 0) expect(a).toBe(ranges[i - 1]![1] + 1);
    });
    expect(ranges.length).toBeLessThanOrEqual(8);
    // Finality followed the scan: every block 4 deep is final.
    expect(resumed.seen.of('finalize').at(-1)!.height).toBe(head - 3);
  });

  it('a reorg deeper than finality stops the watch with ReorgBeyondFinalityError and emits nothing more', async () => {
    const { seen, watch: w } = await watch(null, { confirmations: 2 });
    const base = await chain.head();
    await seen.until(() => seen.tip() === base, 'the start block');
    const snapshot = await chain.snapshot();
    await chain.transfer(token, deposit[2]!, 3_000_000n);
    await chain.mine(2);
    await seen.until(() => seen.of('finalize').some((f) => f.height === base + 2), 'finality of the transfer');
    const emitted = seen.all.length;

    await chain.revert(snapshot);
    await chain.transfer(token, deposit[3]!, 4_000_000n);
    await chain.mine(4);
    await seen.until(() => w.status().state === 'failed', 'the watch to stop');
    expect(seen.errors.at(-1)).toBeInstanceOf(ReorgBeyondFinalityError);
    expect(w.status().lastError).toMatchObject({ name: 'ReorgBeyondFinalityError' });
    expect(seen.all).toHaveLength(emitted); // no reorg, no transfer of the new branch: an operator decides
  });
});
