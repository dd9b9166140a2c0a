import { performance } from 'node:perf_hooks';
import { Connection } from '@solana/web3.js';
import { InlineBlockFetcher } from '../../../src/chains/solana/block-fetch';
import { SolanaRpc } from '../../../src/chains/solana/rpc';
import { SlotSource } from '../../../src/chains/solana/slot-source';
import { SOLANA_USDT_MINT } from '../../../src/chains/solana/config';
import { MainnetPadding } from '../../solana/support/mainnet-padding';
import { SolanaRpcServer } from '../../solana/support/rpc-server';
import { SvmChain } from '../../solana/support/svm-chain';
import type { Child } from '../support/ipc';
import type { LoadResult } from '../support/http-load';
import { startServer, type BenchContext, type Server } from '../support/context';
import { pacedWindow } from '../support/paced-window';
import type { ScenarioReport } from '../support/report';
import { median, summarize } from '../support/stats';
import { processCpuMs, waitQuiet } from '../support/cpu';

/** Mainnet: ~2.5 slots a second. Here one produced block every 400 ms (the harness's skipped slots come on top). */
const SLOT_MS = 400;
const GET_RATE = 200;

/**
 * 10. SOLANA following a mainnet-sized stream: the litesvm harness pads every block to mainnet size
 * (MAINNET_BLOCK: 850 votes and 450 strangers' token transfers, ~3.3 MB of getBlock JSON) and
 * produces one every 400 ms; a live daemon (SOLANA_RPC_URL = the harness, production defaults)
 * follows it. Measured: the daemon's CPU per produced slot and share of a core, the watcher's lag
 * (DB cursor vs the harness's finalized slot), and the API's GET p99 beside it (paced GETs of
 * invoices through the gateway) against the same GETs with the stream paused. Beside it, in this
 * process, the CPU of one getBlock read the old way (web3.js Connection.getBlock) and the new.
 */
export async function solanaStreamScenario(ctx: BenchContext, load: Child): Promise<ScenarioReport> {
  const chain = new SvmChain();
  const rpc = new SolanaRpcServer(chain);
  rpc.padding = new MainnetPadding();
  await rpc.listen();
  let server: Server | null = null;
  try {
    chain.advance(8);
    const perBlock = await readCost(ctx, rpc, chain);
    server = await startServer(ctx, 'solana-stream', { SOLANA_RPC_URL: rpc.url }, { layout: ctx.layout });
    const s = server;
    const merchant = await s.merchant();
    const paths = await invoicesToRead(ctx, s, load, merchant);
    const request = { kind: 'get' as const, apiKey: merchant.apiKey, apiSecret: merchant.apiSecret, paths };
    // The address pool refills after the invoices (deriving keys): not a cost of following the stream.
    const settled = await waitQuiet(() => s.cpu());
    ctx.log(`  solana stream: server quiet after ${(settled.waitedMs / 1000).toFixed(1)} s${settled.quiet ? '' : ' (gave up waiting: still busy)'}`);
    chain.autoProduce(SLOT_MS);
    const lag = new LagProbe(s, chain);
    await lag.untilCaughtUp(60_000);

    const cpuPerSlot: number[] = [];
    const mainPerSlot: number[] = [];
    const coreShare: number[] = [];
    const getP99: number[] = [];
    const lagP99: number[] = [];
    const lagMax: number[] = [];
    const stalls: string[] = [];
    const pid = s.child.process.pid!;
    for (let run = 1; run <= ctx.runs; run++) {
      lag.reset();
      const sampler = lag.sample(250);
      // The stream alone: the daemon's CPU (all its threads) and its main thread's (the event loop).
      const cpu0 = await s.child.call<number>('cpu');
      const main0 = processCpuMs(pid);
      const slots0 = chain.produced.length;
      const t0 = performance.now();
      await new Promise((r) => setTimeout(r, ctx.ms(12_000)));
      const cpu = (await s.child.call<number>('cpu')) - cpu0;
      const main = processCpuMs(pid) - main0;
      const seconds = (performance.now() - t0) / 1000;
      const slots = chain.produced.length - slots0;
      // Then GETs through the gateway beside it.
      const paced = await pacedWindow(ctx, s, load, `solana-stream-get-${run}`, {
        port: s.started.httpPort,
        rate: GET_RATE,
        connections: 32,
        warmupMs: ctx.ms(1000),
        durationMs: ctx.ms(8000),
        okStatuses: [200],
        request,
      });
      await sampler.stop();
      const l = summarize(lag.samples);
      cpuPerSlot.push(cpu / slots);
      mainPerSlot.push(main / slots);
      coreShare.push(cpu / 1000 / seconds);
      getP99.push(paced.paced.latency.p99);
      lagP99.push(l.p99);
      lagMax.push(l.max);
      stalls.push(`run ${run}: ${paced.stallsBrief}`);
      ctx.log(
        `  solana stream run ${run}: ${slots} blocks in ${seconds.toFixed(1)} s, daemon CPU ${(cpu / slots).toFixed(1)} ms/slot (main thread ${(main / slots).toFixed(1)} ms), ${((cpu / 1000 / seconds) * 100).toFixed(0)}% of a core; lag p50 ${l.p50.toFixed(0)} ms, p99 ${l.p99.toFixed(0)} ms, max ${l.max.toFixed(0)} ms; GET p99 ${paced.paced.latency.p99.toFixed(1)} ms at ${GET_RATE}/s (${paced.paced.errors} errors)`,
      );
      ctx.log(`    ${paced.stalls}`);
    }
    // The same GETs with the stream paused (the watcher idle at the tip).
    chain.stopAuto();
    await lag.untilCaughtUp(60_000);
    // The daemon idle at the tip over as long a window: what it spends per 400 ms without blocks.
    const idle0 = await s.child.call<number>('cpu');
    const idleMain0 = processCpuMs(pid);
    const i0 = performance.now();
    await new Promise((r) => setTimeout(r, ctx.ms(12_000)));
    const perSlotTime = SLOT_MS / (performance.now() - i0);
    const idle = { all: ((await s.child.call<number>('cpu')) - idle0) * perSlotTime, main: (processCpuMs(pid) - idleMain0) * perSlotTime };
    ctx.log(`  solana stream paused: daemon CPU per ${SLOT_MS} ms idle ${idle.all.toFixed(1)} ms (main thread ${idle.main.toFixed(1)} ms)`);
    const quiet = await load.call<LoadResult>('http', {
      mode: 'open',
      port: s.started.httpPort,
      rate: GET_RATE,
      connections: 32,
      warmupMs: ctx.ms(1000),
      durationMs: ctx.ms(8000),
      okStatuses: [200],
      request,
    });
    ctx.log(`  solana stream paused: GET p99 ${quiet.latency.p99.toFixed(1)} ms at ${GET_RATE}/s`);
    const share = median(coreShare);
    return {
      id: 10,
      title: 'SOLANA: a mainnet-sized block stream (litesvm harness, padded blocks)',
      figures: [
        {
          name: 'Daemon CPU per produced slot (mainnet-sized block), all threads',
          value: median(cpuPerSlot),
          unit: 'ms',
          runs: cpuPerSlot,
          baseline: { name: `the daemon idle, per ${SLOT_MS} ms`, value: idle.all, unit: 'ms' },
          pass: null,
        },
        {
          name: 'Of which on the main thread (the event loop every API request goes through)',
          value: median(mainPerSlot),
          unit: 'ms',
          runs: mainPerSlot,
          baseline: { name: `the daemon idle, per ${SLOT_MS} ms`, value: idle.main, unit: 'ms' },
          pass: null,
        },
        {
          name: `Daemon CPU while following ${(1000 / SLOT_MS).toFixed(1)} blocks/s`,
          value: share * 100,
          unit: '% of a core',
          runs: coreShare.map((c) => c * 100),
          target: '≤ 50%',
          pass: share <= 0.5,
        },
        { name: 'Watcher lag behind the finalized slot, p99 of 250 ms samples', value: median(lagP99), unit: 'ms', runs: lagP99, pass: null },
        { name: 'Watcher lag, max', value: median(lagMax), unit: 'ms', runs: lagMax, target: '< 5,000 ms (keeps up)', pass: median(lagMax) < 5000 },
        {
          name: `GET /v1/invoices/{uuid} p99 at ${GET_RATE}/s while following`,
          value: median(getP99),
          unit: 'ms',
          runs: getP99,
          baseline: { name: 'the same GETs, stream paused', value: quiet.latency.p99, unit: 'ms' },
          target: '< 50 ms',
          pass: median(getP99) < 50,
        },
        { name: 'One getBlock read, CPU in the reading process: web3.js Connection.getBlock (before)', value: perBlock.web3, unit: 'ms', pass: null },
        { name: 'One getBlock read, CPU in the reading process: SlotSource.block (plain JSON-RPC, mint-only checks)', value: perBlock.ours, unit: 'ms', pass: null },
      ],
      notes: [
        `Blocks: every getBlock answer carries ${rpc.padding.transactions.toLocaleString('en-US')} padding transactions (MainnetPadding: ${MAINNET_NOTE}), ${(rpc.padding.bytes / 1e6).toFixed(1)} MB of JSON, before the block's own; one block every ${SLOT_MS} ms, finalized two blocks behind. The daemon runs with the production defaults (SOLANA_POLL_INTERVAL_MS 1000, SOLANA_BLOCK_CONCURRENCY 4).`,
        `Per run: ${ctx.ms(12_000) / 1000} s of the stream alone, over which the daemon process's CPU (user + system, all threads) and its main thread's (/proc/PID/schedstat) are divided by the blocks produced; then ${(ctx.ms(1000) + ctx.ms(8000)) / 1000} s with ${GET_RATE} signed GETs/s (open loop, 32 connections) of ${paths.length} SOLANA invoices through the gateway, the stream still running. The baseline GETs run once the stream is paused and the watcher idle at the tip. Other processes share the 2 cores: compare the two p99s of the same run.`,
        "Lag: every 250 ms, the time since the oldest finalized block above the daemon's stored cursor (watcher_cursors) was finalized; 0 when the cursor is at the finalized slot. It includes the poll interval (1 s): a lag that stays bounded is a watcher that keeps up.",
        `Read cost beside it (this process, harness serving included in both): the mean CPU of ${READS} reads of a padded block by each path; the difference is web3.js's superstruct validation and object building of every field of every transaction.`,
        ...stalls.map((s) => `Event-loop delay while following, ${s}.`),
      ],
    };
  } finally {
    chain.stopAuto();
    await server?.stop();
    await rpc.close();
  }
}

const MAINNET_NOTE = '850 votes, 450 transfers of USDT or USDC between strangers with 18-31 account keys each, one in 12 failed';
const READS = 6;

/** Mean CPU (ms) of one read of a padded block through web3.js's getBlock and through SlotSource. */
async function readCost(ctx: BenchContext, rpc: SolanaRpcServer, chain: SvmChain): Promise<{ web3: number; ours: number }> {
  const slots = chain.produced.filter((s) => s > 0 && s <= chain.at('finalized').slot).slice(-READS);
  const connection = new Connection(rpc.url, 'finalized');
  const source = new SlotSource(new SolanaRpc(rpc.url), new InlineBlockFetcher({ url: rpc.url, mint: SOLANA_USDT_MINT, timeoutMs: 15_000 }));
  const cpu = async (fn: (slot: number) => Promise<unknown>): Promise<number> => {
    await fn(slots[0]!); // warm
    const c0 = process.cpuUsage();
    for (const slot of slots) await fn(slot);
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000 / slots.length;
  };
  const web3 = await cpu((slot) => connection.getBlock(slot, { commitment: 'finalized', transactionDetails: 'accounts', rewards: false, maxSupportedTransactionVersion: 0 }));
  const ours = await cpu((slot) => source.block(slot));
  ctx.log(`  getBlock of a ${(rpc.padding!.bytes / 1e6).toFixed(1)} MB block: web3.js ${web3.toFixed(0)} ms CPU, SlotSource ${ours.toFixed(0)} ms CPU`);
  return { web3, ours };
}

/** Invoices to GET (SOLANA: their owners are watched): created through the API, each read once before anything is timed. */
async function invoicesToRead(ctx: BenchContext, server: Server, load: Child, merchant: { merchantId: string; apiKey: string; apiSecret: string }): Promise<string[]> {
  const created = await load.call<LoadResult>('http', {
    mode: 'closed',
    port: server.started.httpPort,
    concurrency: 4,
    warmupMs: 0,
    durationMs: ctx.ms(20_000),
    maxRequests: 200,
    okStatuses: [201],
    request: { kind: 'create', apiKey: merchant.apiKey, apiSecret: merchant.apiSecret, network: 'SOLANA', orderPrefix: 'sol-stream' },
  });
  const rows = await server.child.call<{ uuid: string }[]>('sql', { text: 'select uuid from invoices where merchant_id = ? limit 200', params: [merchant.merchantId] });
  if (rows.length === 0) throw new Error(`no invoices to read: creating them failed (${created.errors} errors, first: ${created.firstError})`);
  const paths = rows.map((r) => `/v1/invoices/${r.uuid}`);
  await load.call<LoadResult>('http', {
    mode: 'closed',
    port: server.started.httpPort,
    concurrency: 4,
    warmupMs: 0,
    durationMs: ctx.ms(20_000),
    maxRequests: paths.length,
    okStatuses: [200],
    request: { kind: 'get', apiKey: merchant.apiKey, apiSecret: merchant.apiSecret, paths },
  });
  return paths;
}

/** The daemon's SOLANA cursor (watcher_cursors) against the harness's finalized slot. */
class LagProbe {
  samples: number[] = [];

  constructor(
    private readonly server: Server,
    private readonly chain: SvmChain,
  ) {}

  reset(): void {
    this.samples = [];
  }

  /** Milliseconds since the oldest finalized block above the stored cursor was finalized (0: none). */
  async lagMs(): Promise<number> {
    const rows = await this.server.child.call<{ cursor: unknown }[]>('sql', { text: "select cursor from watcher_cursors where network = 'SOLANA'" });
    const raw = rows[0]?.cursor;
    const cursor = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { slot?: number } | undefined;
    const at = cursor?.slot ?? -1;
    const finalized = this.chain.at('finalized').slot;
    const next = this.chain.produced.find((s) => s > at && s <= finalized);
    if (next === undefined) return 0;
    const since = this.chain.finalizedAt.get(next);
    return since === undefined ? 0 : performance.now() - since;
  }

  async untilCaughtUp(timeoutMs: number): Promise<void> {
    const end = Date.now() + timeoutMs;
    while ((await this.lagMs()) > 2000) {
      if (Date.now() > end) throw new Error(`the SOLANA watcher did not catch up within ${timeoutMs} ms (lag ${(await this.lagMs()).toFixed(0)} ms)`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  sample(everyMs: number): { stop(): Promise<void> } {
    let running = true;
    const loop = (async () => {
      while (running) {
        this.samples.push(await this.lagMs());
        await new Promise((r) => setTimeout(r, everyMs));
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
      },
    };
  }
}
