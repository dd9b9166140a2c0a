import type { Address } from 'viem';
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
const payee = codec.deriveDepositAddress(7);

beforeAll(async () => {
  node = await startHardhatNode();
  proxy = await startRpcProxy(node.url);
  chain = new TestChain(node.url);
  token = await chain.deployToken(6);
  await chain.mint(token, chain.funder.address, 10n ** 15n);
});

afterAll(async () => {
  await proxy?.close();
  await node?.stop();
});

/** Scans (from, head] through the counting proxy; returns the calls made until the head was reported. */
async function scan(from: ChainCursor, head: number, watched: Iterable<string>) {
  const adapter = await testAdapter({ rpcUrl: proxy.url, tokenAddress: token, confirmations: 5, maxBlockRange: 10 });
  const seen = new Observed();
  let counts: Record<string, number> | null = null;
  let getLogs: unknown[][] = [];
  proxy.reset();
  const watch = adapter.watch({
    from,
    watched: watchedSet(watched),
    onError: seen.onError,
    sink: async (o) => {
      await seen.sink(o);
      // The follower is sequential: when it reports the head, every call of the scan is done.
      if (o.kind === 'block' && o.height === head && counts === null) {
        counts = proxy.counts();
        getLogs = proxy.calls.filter((c) => c.method === 'eth_getLogs').map((c) => c.params);
      }
    },
  });
  await seen.until(() => counts !== null, 'the head');
  await watch.stop();
  await adapter.close();
  return { counts: counts!, getLogs, transfers: seen.of('transfer').map((t) => `${t.txHash}:${t.eventIndex}:${t.amount}`) };
}

describe('EVM adapter: RPC cost per block range', () => {
  it('is the same with 1 and with 1000 watched addresses: one eth_getLogs per range, topic filter on the event only', async () => {
    const start = await chain.head();
    const from = { height: start, hash: await chain.blockHash(start) };
    for (let i = 0; i < 40; i++) await chain.transfer(token, i % 4 === 0 ? payee : codec.sampleAddress(`noise ${i}`), BigInt(1_000_000 + i));
    await chain.mine(15);
    const head = await chain.head(); // 55 blocks after the cursor
    const many = [payee, ...Array.from({ length: 999 }, (_, i) => codec.sampleAddress(`watched ${i}`))];

    const one = await scan(from, head, [payee]);
    const thousand = await scan(from, head, many);

    expect(thousand.counts).toEqual(one.counts);
    expect(thousand.transfers).toEqual(one.transfers);
    expect(one.transfers).toHaveLength(10);
    // 55 blocks: 5 final ranges of 10, [51, 51] up to the last final block, then [52, 55]
    // reaching into the unfinalized window (confirmations 5), one eth_getLogs each.
    // Per step one eth_blockNumber; headers: the resume anchor, first+last of each final range,
    // every block of the unfinalized range (1 + 5×2 + 1 + 4), and the header of each block holding
    // one of our transfers that a final range did not fetch (8 of the 10): its exact block time.
    // They grow with the blocks holding our payments, never with watched addresses or open invoices.
    // A range's answer must be proven complete (log-coverage.ts): blocks after its last token
    // Transfer are proven empty by their headers' logs bloom. Blocks 41-50 hold no Transfer at all:
    // the 8 headers between that final range's ends are read (their blooms say "none", so no
    // by-hash eth_getLogs follows). Every other range ends in a block holding a Transfer: nothing more.
    expect(one.counts).toEqual({ eth_blockNumber: 7, eth_getLogs: 7, eth_getBlockByNumber: 16 + 8 + 8 });
    for (const [filter] of thousand.getLogs as Array<[{ address: string; topics: unknown[]; fromBlock: string; toBlock: string }]>) {
      expect(filter.address.toLowerCase()).toBe(token.toLowerCase());
      expect(filter.topics).toHaveLength(1); // Transfer topic only: recipients are matched in memory
      expect(Number(filter.toBlock) - Number(filter.fromBlock)).toBeLessThan(10);
    }
  });
});
