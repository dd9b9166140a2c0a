/**
 * `npm run bench [-- --runs N] [--only 1,3] [--layout split|one] [--quick] [--profile] [--out FILE]`
 *
 * Runs the benchmark scenarios of issue 9 on the embedded defaults (embedded PostgreSQL under a
 * scratch DATA_DIR, devnet chains, a real `hardhat node` for detection) and writes BENCHMARKS.md:
 * machine, date, each figure (median of the runs), its baseline measured in the same run, the
 * ratio, the target and pass/miss. Load goes only to 127.0.0.1. Nothing here asserts timings in the
 * unit tests; this is a separate program. BENCH_KEEP=1 keeps the scratch directory (the daemon's and
 * the gateway's logs) after the run.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { startLoadgen, startServer, type BenchContext, type Server } from './support/context';
import { machine, renderMarkdown, type ScenarioReport } from './support/report';
import { invoiceCreation, POOL_BATCH, POOL_MIN_FREE } from './scenarios/invoice-create';
import { invoiceRead } from './scenarios/invoice-get';
import { liveActors } from './scenarios/live-actors';
import { watcherMatching } from './scenarios/watcher-matching';
import { detectionLatency } from './scenarios/detection';
import { withdrawalsUnderContention } from './scenarios/withdrawals';
import { tronCallsPerBlock } from './scenarios/tron-calls';
import { tonScenario } from './scenarios/ton';
import { tonPayoutsScenario } from './scenarios/ton-payouts';
import { solanaScenario } from './scenarios/solana';
import { solanaStreamScenario } from './scenarios/solana-stream';
import { solanaPayoutScenario } from './scenarios/solana-payouts';
import { startHardhatNode, type HardhatNode } from '../evm/support/hardhat-node';
import { TestChain } from '../evm/support/test-chain';
import { samplingIntervalUs } from './support/profiler';

interface Options {
  runs: number;
  only: Set<number>;
  quick: boolean;
  profile: boolean;
  out: string;
  layout: 'one' | 'split';
}

const REPO = path.resolve(__dirname, '..', '..');

function parseArgs(argv: readonly string[]): Options {
  const o: Options = { runs: 3, only: new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), quick: false, profile: false, out: path.join(REPO, 'BENCHMARKS.md'), layout: 'split' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => argv[++i] ?? '';
    if (a === '--runs') o.runs = Math.max(1, Number(value()));
    else if (a === '--only') o.only = new Set(value().split(',').map(Number));
    else if (a === '--quick') o.quick = true;
    else if (a === '--profile') o.profile = true;
    else if (a === '--out') o.out = path.resolve(value());
    else if (a === '--layout') {
      const layout = value();
      if (layout !== 'one' && layout !== 'split') throw new Error('--layout is one or split');
      o.layout = layout;
    } else throw new Error(`unknown option ${a}`);
  }
  if (o.quick && !argv.includes('--runs')) o.runs = 1;
  // Refused here rather than in a child process halfway through the run.
  if (o.profile) samplingIntervalUs(process.env.BENCH_PROFILE_INTERVAL_US);
  return o;
}

function layoutNotes(layout: 'one' | 'split'): string[] {
  const sut =
    layout === 'split'
      ? 'The system under test runs as in production (docker-compose.yml): the daemon (embedded PostgreSQL under a fresh DATA_DIR, devnet chains) and the gateway in two processes, talking gRPC over 127.0.0.1 (`--layout one` runs both in one process, as `npm start` does). LOG_LEVEL is info (the gateway logs every /v1 request), to files. "Server CPU" adds up both processes.'
      : 'The system under test runs in ONE process, as `npm start` runs it (`--layout one`): the daemon (embedded PostgreSQL under a fresh DATA_DIR, devnet chains) and the gateway in front of it, talking gRPC over 127.0.0.1. LOG_LEVEL is info (the gateway logs every /v1 request), to a file.';
  return [
    sut,
    'The load generator is a separate Node process (keep-alive HTTP/1.1 over raw sockets, pre-signed requests); the SQL baselines run from it too, each client on its own connection.',
    'PostgreSQL runs as its own processes. All processes share the same cores: every figure includes that contention.',
    'Scenario 5 adds a `hardhat node` process (the real EVM JSON-RPC), scenario 3 runs its daemon alone with `--max-old-space-size=1024`.',
    'Each process gets the Node flags of its start script in package.json (docs/performance.md says why each is there).',
    "CPU figures: each process's CPU time over the measured time, per request. For the service, PostgreSQL counts all its processes; for a SQL baseline, only its own backends (/proc/PID/schedstat of each connection's pg_backend_pid()) plus its client.",
  ];
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const started = performance.now();
  const m = machine();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-bench-'));
  // As root, the embedded PostgreSQL runs as the `postgres` user: it must traverse into its DATA_DIR.
  fs.chmodSync(root, 0o711);
  const profileDir = o.profile ? path.join(REPO, '.prof') : null;
  if (profileDir) fs.mkdirSync(profileDir, { recursive: true });
  const ctx: BenchContext = {
    root,
    runs: o.runs,
    quick: o.quick,
    layout: o.layout,
    profileDir,
    log: (msg) => process.stdout.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${msg}\n`),
    ms: (normal) => (o.quick ? Math.max(200, Math.round(normal / 4)) : normal),
  };
  ctx.log(`chainpay bench: ${m.cpu}, ${m.cores} cores, ${m.ramGiB} GiB, Node ${m.node}; ${o.runs} run(s) per figure; scratch ${root}`);
  const reports: ScenarioReport[] = [];
  const run = async (id: number, title: string, fn: () => Promise<ScenarioReport | ScenarioReport[]>) => {
    if (!o.only.has(id)) return;
    ctx.log(`${id}. ${title}`);
    const t0 = performance.now();
    try {
      const r = await fn();
      for (const rep of Array.isArray(r) ? r : [r]) reports.push({ ...rep, seconds: (performance.now() - t0) / 1000 });
    } catch (err) {
      const e = err as Error;
      ctx.log(`${id}. failed: ${e.stack ?? e.message}`);
      reports.push({ id, title, figures: [], notes: [], error: e.stack ?? e.message, seconds: (performance.now() - t0) / 1000 });
    }
  };

  const load = startLoadgen();
  try {
    await scenarios();
  } finally {
    await load.stop();
  }
  async function scenarios(): Promise<void> {
    if (o.only.has(1) || o.only.has(2)) {
      // Scenario 2 reads the invoices scenario 1 created: one server for both.
      let server: Server | null = null;
      try {
        server = await startServer(ctx, 'invoices', { ADDRESS_POOL_MIN_FREE: String(POOL_MIN_FREE), ADDRESS_POOL_BATCH: String(POOL_BATCH) }, { layout: o.layout });
      } catch (err) {
        for (const id of [1, 2].filter((i) => o.only.has(i))) await run(id, id === 1 ? 'Signed invoice creation, end to end' : 'GET /v1/invoices/{uuid}', () => Promise.reject(err));
      }
      if (server) {
        const s = server;
        try {
          const merchant = await s.merchant();
          await run(1, 'Signed invoice creation, end to end', () => invoiceCreation(ctx, s, merchant, load));
          await run(2, 'GET /v1/invoices/{uuid}', () => invoiceRead(ctx, s, merchant, load));
        } finally {
          await s.stop();
        }
      }
    }
    await run(3, 'Live invoice actors: memory and restart', () => liveActors(ctx));
    if (o.only.has(4) || o.only.has(5)) {
      // One real `hardhat node` with a test USDT for the RPC count (4) and detection (5).
      let node: HardhatNode | null = null;
      try {
        node = await startHardhatNode();
        const chain = new TestChain(node.url);
        const token = await chain.deployToken(6);
        await chain.mint(token, chain.funder.address, 10n ** 15n);
        const n = node;
        await run(4, 'Watcher matching', () => watcherMatching(ctx, load, n, chain, token));
        await run(5, 'Detection latency on a hardhat node', () => detectionLatency(ctx, n, chain, token));
      } catch (err) {
        for (const id of [4, 5].filter((i) => o.only.has(i) && !reports.some((r) => r.id === i)))
          await run(id, id === 4 ? 'Watcher matching' : 'Detection latency on a hardhat node', () => Promise.reject(err));
      } finally {
        await node?.stop();
      }
    }
    await run(6, 'Withdrawals under contention', () => withdrawalsUnderContention(ctx, load));
    await run(7, 'TON: toncenter calls per poll and detection latency (sandbox harness)', () => tonScenario(ctx));
    await run(8, 'SOLANA: RPC calls per slot and detection latency (litesvm harness)', () => solanaScenario(ctx));
    await run(10, 'SOLANA: a mainnet-sized block stream (CPU per slot, lag, GET p99 beside it)', () => solanaStreamScenario(ctx, load));
  }
  // Its own TRON harness (a hardhat node behind the java-tron HTTP API); needs no daemon.
  await run(9, 'TRC20 watcher: HTTP calls per block and detection (TRON harness)', () => tronCallsPerBlock(o.quick));
  // The live SOLANA adapter on a busy litesvm harness; needs no daemon.
  await run(12, 'SOLANA: payout landing time on a busy harness (litesvm)', () => solanaPayoutScenario(ctx));
  // The TON adapter's payouts on the sandbox harness; needs no daemon.
  await run(11, 'TON: payouts per minute with a queue of 100 (sandbox harness, real inclusion)', () => tonPayoutsScenario(ctx));

  reports.sort((a, b) => a.id - b.id);
  const total = (performance.now() - started) / 1000;
  fs.writeFileSync(o.out, renderMarkdown(m, reports, layoutNotes(o.layout), total));
  if (!process.env.BENCH_KEEP) fs.rmSync(root, { recursive: true, force: true });
  ctx.log(`wrote ${o.out}`);
  for (const r of reports) for (const f of r.figures) ctx.log(`  ${r.id}. ${f.name}: ${f.value.toFixed(2)} ${f.unit}${f.pass === null ? '' : f.pass ? ' (pass)' : ' (miss)'}`);
  if (reports.some((r) => r.error)) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
