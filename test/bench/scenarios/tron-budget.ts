import { privateKeyToAccount } from 'viem/accounts';
import type { ChainCursor } from '../../../src/chains/types';
import { HARDHAT_KEYS } from '../../evm/support/test-chain';
import { recorder, testTronCodec, tronTestAdapter, until, watchedOf } from '../../tron/support/adapter';
import { busiestSecond } from '../../tron/support/call-rate';
import type { TronTestChain } from '../../tron/support/tron-chain';

/** TRON's block time, and the factor the head run is sped up by (every interval divided by it: the same calls per block). */
const BLOCK_MS = 3000;
const SPEEDUP = 10;
const BLOCKS_PER_DAY = 28_800;
/** TRC20_RPS's default, used for the catch-up. */
const RPS = 10;

export interface TronBudget {
  readonly headBlocks: number;
  readonly headCallsPerBlock: number;
  readonly headCallsPerDay: number;
  readonly headByPath: Record<string, number>;
  readonly catchUpBlocks: number;
  readonly catchUpCalls: number;
  readonly catchUpSeconds: number;
  readonly catchUpBusiestSecond: number;
  readonly rps: number;
}

/**
 * TronGrid's budget (issue 46 item 6) on the TRON harness, with mainnet's shape: the solidified head
 * 19 blocks behind, TRC20_CONFIRMATIONS 20, every block holding transactions (one of them to a
 * watched address every 20th block).
 * - At the head: the adapter's defaults (poll 9 s, head reused within a block, solidified head once
 *   per 10 blocks) with every interval divided by 10 (a block every 300 ms): the same calls per
 *   block as at 3 s, counted over `headBlocks` blocks, times 28,800 blocks a day.
 * - Catch-up: the watch resumes `catchUpBlocks` behind at TRC20_RPS = 10, in real time; the most
 *   calls that reached the node in any one second.
 */
export async function measureBudget(chain: TronTestChain, quick: boolean): Promise<TronBudget> {
  const codec = testTronCodec();
  const filler = privateKeyToAccount(HARDHAT_KEYS[0]).address;
  const watchedTo = codec.deriveDepositAddress(7);
  const block = async (i: number, pay: boolean): Promise<void> => {
    await chain.evm.rpc('eth_sendTransaction', [{ from: filler, to: filler, value: '0x1' }]);
    if (pay) await chain.pay(watchedTo, BigInt(1_000_000 + i));
    await chain.produce(1);
  };
  chain.server.solidLag = 19;
  for (let i = 0; i < 25; i++) await block(i, false);

  const headBlocks = quick ? 60 : 200;
  const head = await tronTestAdapter({
    rpcUrl: chain.url,
    tokenAddress: chain.usdt,
    apiKey: 'bench-head',
    confirmations: 20,
    pollIntervalMs: 9000 / SPEEDUP,
    headReuseMs: BLOCK_MS / SPEEDUP,
    solidEveryBlocks: 10,
    rps: RPS * SPEEDUP,
  });
  const { seen, sink } = recorder();
  const watch = head.watch({ from: null, watched: watchedOf(head, [watchedTo]), sink });
  await until(() => seen.length > 0);
  const startCall = chain.server.calls.length;
  const t0 = performance.now();
  for (let i = 0; i < headBlocks; i++) {
    const due = t0 + (i + 1) * (BLOCK_MS / SPEEDUP);
    await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
    await block(i, i % 20 === 10);
  }
  const last = await chain.head();
  await until(() => seen.some((o) => o.kind === 'block' && o.height === last), 30_000);
  await watch.stop();
  await head.close();
  const byPath = countByKey(chain, startCall, 'bench-head');
  const headCalls = Object.values(byPath).reduce((a, b) => a + b, 0);
  const cursor = seen.filter((o) => o.kind === 'block').at(-1)!.cursor as ChainCursor;

  const catchUpBlocks = quick ? 200 : 1_000;
  for (let i = 0; i < catchUpBlocks; i++) await block(i, i % 50 === 25);
  const target = await chain.head();
  const catchUp = await tronTestAdapter({ rpcUrl: chain.url, tokenAddress: chain.usdt, apiKey: 'bench-catchup', confirmations: 20, rps: RPS });
  const again = recorder();
  const from = chain.server.calls.length;
  const c0 = performance.now();
  const watch2 = catchUp.watch({ from: cursor, watched: watchedOf(catchUp, [watchedTo]), sink: again.sink });
  await until(() => again.seen.some((o) => o.kind === 'block' && o.height === target), 600_000);
  const catchUpSeconds = (performance.now() - c0) / 1000;
  await watch2.stop();
  await catchUp.close();
  const times = chain.server.times.slice(from).filter((_, i) => chain.server.apiKeys[from + i] === 'bench-catchup');
  return {
    headBlocks,
    headCallsPerBlock: +(headCalls / headBlocks).toFixed(3),
    headCallsPerDay: Math.round((headCalls / headBlocks) * BLOCKS_PER_DAY),
    headByPath: Object.fromEntries(Object.entries(byPath).map(([k, v]) => [k, +(v / headBlocks).toFixed(3)])),
    catchUpBlocks,
    catchUpCalls: times.length,
    catchUpSeconds: +catchUpSeconds.toFixed(1),
    catchUpBusiestSecond: busiestSecond(times),
    rps: RPS,
  };
}

function countByKey(chain: TronTestChain, from: number, key: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (let i = from; i < chain.server.calls.length; i++) {
    if (chain.server.apiKeys[i] === key) counts[chain.server.calls[i]!] = (counts[chain.server.calls[i]!] ?? 0) + 1;
  }
  return counts;
}
