/**
 * `npx tsx test/bench/tron-calls.ts`: the TRC20 watcher on the TRON harness (java-tron HTTP API over a
 * real hardhat node, test/tron/support): HTTP calls per block with 1, 1,000 and 100,000 watched
 * addresses (10 blocks, each with one payment to a watched address and one to an unwatched one), and
 * detection latency: block produced -> the transfer observed by the adapter's watch (poll interval
 * POLL_MS; the invoice's `confirming` follows in the same watcher step). Numbers go to
 * docs/pending/tron.md (and BENCHMARKS.md at the merge).
 */
import { performance } from 'node:perf_hooks';
import { recorder, testTronCodec, tronTestAdapter, until, watchedOf } from '../tron/support/adapter';
import { TronTestChain } from '../tron/support/tron-chain';

const BLOCKS = 10;
const POLL_MS = 200;

async function main(): Promise<void> {
  const chain = await TronTestChain.start();
  chain.server.solidLag = 2;
  const codec = testTronCodec();
  try {
    for (const watchedCount of [1, 1_000, 100_000]) {
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
      // The adapter's calls only (it sends the API key; the buyer's tronweb does not).
      const counts: Record<string, number> = {};
      chain.server.calls.forEach((path, i) => {
        if (chain.server.apiKeys[i] !== null) counts[path] = (counts[path] ?? 0) + 1;
      });
      const perBlock = Object.fromEntries(Object.entries(counts).map(([k, v]) => [k, +(v / BLOCKS).toFixed(2)]));
      latencies.sort((a, b) => a - b);
      console.log(
        JSON.stringify({
          watched: watchedCount,
          callsPerBlock: perBlock,
          totalPerBlock: +(Object.values(counts).reduce((a, b) => a + b, 0) / BLOCKS).toFixed(2),
          detectionMs: { median: Math.round(latencies[Math.floor(latencies.length / 2)]!), max: Math.round(latencies[latencies.length - 1]!) },
          pollMs: POLL_MS,
        }),
      );
    }
  } finally {
    await chain.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
