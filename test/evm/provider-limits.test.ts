import type { Address } from 'viem';
import type { EvmAdapter, EvmWatch } from '../../src/chains/evm';
import { testAdapter, testCodec } from './support/adapter';
import { startHardhatNode, type HardhatNode } from './support/hardhat-node';
import { Observed, watchedSet } from './support/observations';
import { startRpcProxy, type RpcProxy } from './support/rpc-proxy';
import { TestChain } from './support/test-chain';

/**
 * Issue 46 item 8, on the JSON-RPC proxy in front of a hardhat node: a provider that refuses
 * eth_getLogs ranges above a limit (Infura's -32602 "range N exceeds limit of M"), and one whose
 * call hangs. A refused range narrows and grows back as calls succeed; a timeout is retried as a
 * timeout, on the same range.
 */
let node: HardhatNode;
let proxy: RpcProxy;
let chain: TestChain;
let token: Address;
const codec = testCodec();
const payee = codec.deriveDepositAddress(3);
const open: Array<{ watch: EvmWatch; adapter: EvmAdapter }> = [];

beforeAll(async () => {
  node = await startHardhatNode();
  chain = new TestChain(node.url); // the test's own calls go to the node, not through the proxy
  token = await chain.deployToken(6);
  await chain.mint(token, chain.funder.address, 10n ** 12n);
});

beforeEach(async () => {
  proxy = await startRpcProxy(node.url);
});

afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.watch.stop();
    await o.adapter.close();
  }
  await proxy?.close();
});

afterAll(async () => {
  await node?.stop();
});

type Config = Parameters<typeof testAdapter>[0];

async function watching(extra: Partial<Config>) {
  const adapter = await testAdapter({ rpcUrl: proxy.url, tokenAddress: token, confirmations: 3, maxBlockRange: 64, ...extra });
  const seen = new Observed();
  const watch = adapter.watch({ from: null, watched: watchedSet([payee]), sink: seen.sink, onError: seen.onError });
  open.push({ adapter, watch });
  const head = await chain.head();
  await seen.until(() => seen.tip() >= head, 'the first block');
  return { seen, watch };
}

/** The head node stalls while `blocks` blocks are mined (one payment to the payee every `payEvery`), then the watcher catches up. */
async function fallBehind(seen: Observed, blocks: number, payEvery: number): Promise<string[]> {
  const start = await chain.head();
  proxy.faults.frozenHead = start;
  const paid: string[] = [];
  while ((await chain.head()) < start + blocks) {
    if (((await chain.head()) - start) % payEvery === payEvery - 1) paid.push(await chain.transfer(token, payee, 1_000_000n));
    else await chain.mine(1);
  }
  proxy.faults.frozenHead = null;
  const head = await chain.head();
  await seen.until(() => seen.tip() >= head, `the head ${head}`, 30_000);
  return paid;
}

/** The eth_getLogs range calls since `from` (index in proxy.calls): their sizes in blocks. */
function rangeSizes(from: number): number[] {
  return proxy.calls
    .slice(from)
    .filter((c) => c.method === 'eth_getLogs')
    .map((c) => c.params[0] as { fromBlock?: string; toBlock?: string })
    .filter((f) => f.fromBlock !== undefined)
    .map((f) => Number(f.toBlock) - Number(f.fromBlock) + 1);
}

describe('EVM watcher against provider limits (proxy in front of hardhat)', () => {
  it('a range refused above 20 blocks narrows to fit; once the provider accepts more, it grows back to maxBlockRange', async () => {
    const { seen, watch } = await watching({ rangeGrowth: { growAfter: 2, forgetAfter: 8, timeoutsAsRefusal: 3 } });
    proxy.faults.refuseRangeAbove = 20;
    const paidLimited = await fallBehind(seen, 240, 40);
    const refusals = seen.errors.filter((e) => e.name === 'RangeTooLargeError').length;
    expect(refusals).toBeGreaterThan(0);
    expect(proxy.fired.refused).toBe(refusals);
    const accepted = rangeSizes(0).filter((n) => n <= 20);

    proxy.faults.refuseRangeAbove = null;
    const mark = proxy.calls.length;
    const paidOpen = await fallBehind(seen, 640, 160);
    const lifted = rangeSizes(mark);
    // Grown back: the catch-up ends in full 64-block ranges, and the range is 64 again.
    expect(Math.max(...lifted)).toBe(64);
    expect(lifted.filter((n) => n === 64).length).toBeGreaterThanOrEqual(3);
    expect(watch.status().maxRange).toBe(64);
    // While limited, accepted ranges were at most 20 blocks and, past the first refusals, mostly
    // exactly 20: the size settles at the provider's limit, not at a power-of-two below it.
    expect(accepted.filter((n) => n === 20).length).toBeGreaterThan(5);
    // Every payment once, in both phases.
    const transfers = seen.of('transfer').map((t) => t.txHash);
    expect(new Set(transfers)).toEqual(new Set([...paidLimited, ...paidOpen]));
    expect(new Set(seen.of('transfer').map((t) => `${t.txHash}:${t.eventIndex}`)).size).toBe(paidLimited.length + paidOpen.length);
  }, 60_000);

  it('a hanging eth_getLogs is a timeout: retried with backoff on the same range, not narrowed', async () => {
    const { seen, watch } = await watching({ rpcTimeoutMs: 300 });
    const mark = proxy.calls.length;
    proxy.faults.hangGetLogs = 1;
    const paid = await fallBehind(seen, 50, 25);
    expect(proxy.fired.hung).toBe(1);
    const timeouts = seen.errors.filter((e) => e.name === 'RpcTimeoutError');
    expect(timeouts).toHaveLength(1);
    expect(timeouts[0]).toMatchObject({ code: 'rpc_timeout', retryable: true });
    expect(seen.errors.filter((e) => e.name === 'RangeTooLargeError')).toEqual([]);
    // The hung range is asked again as it was.
    const ranges = proxy.calls
      .slice(mark)
      .filter((c) => c.method === 'eth_getLogs')
      .map((c) => c.params[0] as { fromBlock?: string; toBlock?: string });
    expect(ranges[1]).toEqual(ranges[0]);
    expect(Number(ranges[0]!.toBlock) - Number(ranges[0]!.fromBlock) + 1).toBeGreaterThan(32);
    expect(watch.status().maxRange).toBe(64);
    expect(seen.of('transfer').map((t) => t.txHash)).toEqual(paid);
  }, 30_000);
});
