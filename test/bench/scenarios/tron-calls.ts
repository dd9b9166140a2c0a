import { performance } from 'node:perf_hooks';
import { recorder, testTronCodec, tronTestAdapter, until, watchedOf } from '../../tron/support/adapter';
import { TronTestChain } from '../../tron/support/tron-chain';
import type { Figure, ScenarioReport } from '../support/report';
import { measureBudget, type TronBudget } from './tron-budget';

const BLOCKS = 10;
const POLL_MS = 200;

/** One watched-set size: the adapter's HTTP calls per block by path, and detection latency. */
export interface TronCallsSample {
  readonly watched: number;
  readonly callsPerBlock: Record<string, number>;
  readonly totalPerBlock: number;
  readonly detectionMs: { readonly median: number; readonly max: number };
}

/**
 * Scenario 9: the TRC20 watcher on the TRON harness (java-tron HTTP API over a real hardhat node,
 * test/tron/support): HTTP calls per block with 1, 1,000 and 100,000 watched addresses (10 blocks,
 * each with one payment to a watched address and one to an unwatched one), and detection latency:
 * block produced -> the transfer observed by the adapter's watch (poll interval 200 ms). The calls
 * per block must not grow with the watched set. `quick`: 1 and 1,000 only.
 */
export async function tronCallsPerBlock(quick = false): Promise<ScenarioReport> {
  const samples = await measure(quick ? [1, 1_000] : [1, 1_000, 100_000]);
  const budget = await budgetOnOwnChain(quick);
  const figures: Figure[] = [];
  const one = samples[0]!;
  for (const s of samples) {
    figures.push({
      name: `HTTP calls per block, ${s.watched.toLocaleString('en-US')} watched`,
      value: s.totalPerBlock,
      unit: 'calls',
      target: `same as with 1 watched (${one.totalPerBlock})`,
      pass: s.totalPerBlock <= one.totalPerBlock + 0.5,
    });
    figures.push({ name: `detection latency (median), ${s.watched.toLocaleString('en-US')} watched`, value: s.detectionMs.median, unit: 'ms', pass: null });
  }
  figures.push(
    { name: 'TronGrid calls per day at the head (defaults)', value: budget.headCallsPerDay, unit: 'calls', target: '<= 50,000', pass: budget.headCallsPerDay <= 50_000 },
    {
      name: `catch-up of ${budget.catchUpBlocks.toLocaleString('en-US')} blocks: most calls in any second`,
      value: budget.catchUpBusiestSecond,
      unit: 'calls',
      target: `<= TRC20_RPS (${budget.rps})`,
      pass: budget.catchUpBusiestSecond <= budget.rps,
    },
    { name: `catch-up of ${budget.catchUpBlocks.toLocaleString('en-US')} blocks: time`, value: budget.catchUpSeconds, unit: 's', pass: null },
  );
  return {
    id: 9,
    title: 'TRC20 watcher: HTTP calls per block and detection (TRON harness)',
    figures,
    notes: [
      `Per block, by path: ${samples.map((s) => `${s.watched} watched ${JSON.stringify(s.callsPerBlock)}`).join('; ')}.`,
      `Only the adapter's own calls count (it sends the API key; the buyer's tronweb does not). Poll ${POLL_MS} ms, ${BLOCKS} blocks per size; the 100,000 set holds sampled (non-HD) addresses.`,
      'The per-block figures above poll every 200 ms with the head and solidified head read every time (test settings), not the defaults.',
      `Budget with the defaults (src/chains/tron/config.ts, block-source.ts): ${budget.headCallsPerBlock} calls per block at the head over ${budget.headBlocks} blocks (${JSON.stringify(budget.headByPath)}), times 28,800 blocks a day; solidified head 19 behind, TRC20_CONFIRMATIONS 20, a stranger's transaction in every block, a watched payment every 20th; run 10x faster than mainnet (a block every 300 ms, every interval divided by 10).`,
      `Catch-up: ${budget.catchUpCalls} calls for ${budget.catchUpBlocks} blocks in ${budget.catchUpSeconds} s at TRC20_RPS=${budget.rps}, the most in any second at the node ${budget.catchUpBusiestSecond}.`,
    ],
  };
}

/** The budget run on a harness of its own (mainnet's solidification lag). */
async function budgetOnOwnChain(quick: boolean): Promise<TronBudget> {
  const chain = await TronTestChain.start();
  try {
    return await measureBudget(chain, quick);
  } finally {
    await chain.stop();
  }
}

export async function measure(sizes: readonly number[]): Promise<TronCallsSample[]> {
  const chain = await TronTestChain.start();
  chain.server.solidLag = 2;
  const codec = testTronCodec();
  const out: TronCallsSample[] = [];
  try {
    for (const watchedCount of sizes) {
      // Valid addresses of other keys (HD derivation of 100,000 would dominate the run): the set's size is what counts.
      const addresses = Array.from({ length: watchedCount }, (_, i) => codec.sampleAddress(`bench watched ${i}`));
      const adapter = await tronTestAdapter({ rpcUrl: chain.url, tokenAddress: chain.usdt, pollIntervalMs: POLL_MS, apiKey: 'bench' });
      const { seen, sink } = recorder();
      const watch = adapter.watch({ from: null, watched: watchedOf(adapter, addresses), sink });
      await until(() => seen.length > 0);
      const start = await chain.head();
      chain.server.calls.length = 0;
      chain.server.apiKeys.length = 0;
      const latencies: number[] = [];
      for (let i = 0; i < BLOCKS; i++) {
        const txID = await chain.pay(addresses[(i * 7919) % addresses.length]!, 1_000_000n);
        await chain.pay(codec.sampleAddress(`bench unwatched ${i}`), 1_000_000n);
        const produced = performance.now();
        await chain.produce(1);
        await until(() => seen.some((o) => o.kind === 'transfer' && o.txHash === txID), 30_000);
        latencies.push(performance.now() - produced);
        await until(() => seen.some((o) => o.kind === 'block' && o.height === start + i + 1), 30_000);
      }
      await watch.stop();
      await adapter.close();
      const counts: Record<string, number> = {};
      chain.server.calls.forEach((path, i) => {
        if (chain.server.apiKeys[i] !== null) counts[path] = (counts[path] ?? 0) + 1;
      });
      latencies.sort((a, b) => a - b);
      out.push({
        watched: watchedCount,
        callsPerBlock: Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, +(v / BLOCKS).toFixed(2)])),
        totalPerBlock: +(Object.values(counts).reduce((a, b) => a + b, 0) / BLOCKS).toFixed(2),
        detectionMs: { median: Math.round(latencies[Math.floor(latencies.length / 2)]!), max: Math.round(latencies[latencies.length - 1]!) },
      });
    }
  } finally {
    await chain.stop();
  }
  return out;
}
