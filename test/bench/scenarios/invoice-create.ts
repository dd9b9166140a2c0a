import type { Child } from '../support/ipc';
import type { RequestSpec } from '../support/requests';
import type { LoadResult } from '../support/http-load';
import type { SqlParam, SqlResult } from '../support/sql-load';
import { embeddedPostgresPid, treeCpuMs } from '../support/cpu';
import { coresFor, describeBudget, serviceBudget, sqlBaselineBudget } from '../support/cpu-budget';
import { fmt } from '../support/report';
import { profiled, type BenchContext, type Server } from '../support/context';
import type { ScenarioReport } from '../support/report';
import { median } from '../support/stats';
import { pacedWindow } from '../support/paced-window';

export const CREATE_CONCURRENCY = 32;
export const CREATE_NETWORK = 'POLYGON';

type Merchant = { merchantId: string; apiKey: string; apiSecret: string };

/**
 * 1. Signed invoice creation end to end: HTTP + HMAC at the gateway -> gRPC -> the daemon
 * (validation, fees, an XState actor, a deposit address taken with SKIP LOCKED) -> the row and the
 * actor's snapshot committed in one transaction. Baseline: single-row INSERTs of the same columns
 * (a row the API just wrote, new uuid and order_id each time) by the same number of clients,
 * straight into the same PostgreSQL, into a copy of the table with the same indexes.
 */
export async function invoiceCreation(ctx: BenchContext, server: Server, merchant: Merchant, load: Child): Promise<ScenarioReport> {
  const pg = embeddedPostgresPid(server.dataDir);
  const throughput: number[] = [];
  const p99: number[] = [];
  const p50: number[] = [];
  const rates: number[] = [];
  const baseline: number[] = [];
  const nodeUs: number[] = [];
  const pgUs: number[] = [];
  const loadUs: number[] = [];
  const insertPgUs: number[] = [];
  const insertClientUs: number[] = [];
  const errors: string[] = [];
  const request = (prefix: string): RequestSpec => ({ kind: 'create', apiKey: merchant.apiKey, apiSecret: merchant.apiSecret, network: CREATE_NETWORK, orderPrefix: prefix });

  for (let run = 1; run <= ctx.runs; run++) {
    const cpu0 = await server.cpu();
    const pg0 = pg ? treeCpuMs(pg) : 0;
    const sustained = await profiled(ctx, server, `create-throughput-${run}`, () =>
      load.call<LoadResult>('http', {
        mode: 'closed',
        port: server.started.httpPort,
        concurrency: CREATE_CONCURRENCY,
        warmupMs: ctx.ms(2000),
        durationMs: ctx.ms(8000),
        okStatuses: [201],
        request: request(`t${run}`),
      }),
    );
    const cpu1 = await server.cpu();
    const pg1 = pg ? treeCpuMs(pg) : 0;
    // CPU per invoice over warm-up + window (both ran at the same pace).
    const made = sustained.throughput * ((ctx.ms(2000) + ctx.ms(8000)) / 1000);
    nodeUs.push(((cpu1 - cpu0) * 1000) / made);
    pgUs.push(((pg1 - pg0) * 1000) / made);
    loadUs.push(((sustained.clientCpuMs ?? 0) * 1000) / made);
    throughput.push(sustained.throughput);
    if (sustained.errors) errors.push(`throughput run ${run}: ${sustained.errors} errors, first: ${sustained.firstError}`);
    ctx.log(
      `  create run ${run}: ${sustained.throughput.toFixed(0)}/s sustained (p50 ${sustained.latency.p50.toFixed(1)} ms at ${CREATE_CONCURRENCY} clients); CPU per invoice: server ${nodeUs.at(-1)!.toFixed(0)} µs, PostgreSQL ${pgUs.at(-1)!.toFixed(0)} µs, load generator ${loadUs.at(-1)!.toFixed(0)} µs`,
    );

    const rate = Math.max(1, Math.floor(sustained.throughput / 2));
    rates.push(rate);
    const { paced, stalls } = await pacedWindow(ctx, server, load, `create-latency-${run}`, {
      port: server.started.httpPort,
      rate,
      connections: 128,
      warmupMs: ctx.ms(1000),
      durationMs: ctx.ms(8000),
      okStatuses: [201],
      request: request(`l${run}`),
    });
    p99.push(paced.latency.p99);
    p50.push(paced.latency.p50);
    if (paced.errors) errors.push(`latency run ${run}: ${paced.errors} errors, first: ${paced.firstError}`);
    ctx.log(`  create run ${run}: at ${rate}/s p50 ${paced.latency.p50.toFixed(1)} ms, p99 ${paced.latency.p99.toFixed(1)} ms; ${stalls}`);

    const inserts = await load.call<SqlResult>('sql', await insertBaseline(server, merchant, run, ctx));
    insertPgUs.push((inserts.backendCpuMs * 1000) / Math.max(1, inserts.statements));
    insertClientUs.push((inserts.clientCpuMs * 1000) / Math.max(1, inserts.statements));
    // The baseline's ~60,000 rows go: left in place, autovacuum worked through them during the next
    // run's sustained window (stop 19: the middle run of three was the slow one, 1,049/s once).
    // Each run's baseline starts from an empty copy of the table.
    await server.child.call('sql', { text: 'drop table if exists bench_invoices' });
    baseline.push(inserts.throughput);
    if (inserts.errors) errors.push(`baseline run ${run}: ${inserts.errors} errors, first: ${inserts.firstError}`);
    ctx.log(
      `  create run ${run}: baseline ${inserts.throughput.toFixed(0)} INSERT/s; CPU per INSERT: its PostgreSQL backends ${insertPgUs.at(-1)!.toFixed(0)} µs, client ${insertClientUs.at(-1)!.toFixed(0)} µs`,
    );
  }

  const t = median(throughput);
  const b = median(baseline);
  const perInvoice = serviceBudget({ server: nodeUs, postgres: pgUs, load: loadUs });
  const perInsert = sqlBaselineBudget({ backends: insertPgUs, client: insertClientUs });
  return {
    id: 1,
    title: 'Signed invoice creation, end to end',
    figures: [
      { name: `Invoices created per second, sustained (${CREATE_CONCURRENCY} clients)`, value: t, unit: '/s', runs: throughput, target: '≥ 2,000/s', pass: t >= 2000 },
      {
        name: `Throughput vs raw single-row INSERTs (${CREATE_CONCURRENCY} clients)`,
        value: t,
        unit: '/s',
        baseline: { name: 'INSERT of the same columns', value: b, unit: '/s', runs: baseline },
        ratio: t / b,
        target: 'ratio ≥ 0.2',
        pass: t / b >= 0.2,
      },
      { name: `p99 latency at half the sustained rate (${fmtRates(rates)})`, value: median(p99), unit: 'ms', runs: p99, target: '< 50 ms', pass: median(p99) < 50 },
      { name: 'p50 latency at half the sustained rate', value: median(p50), unit: 'ms', runs: p50, pass: null },
      { name: 'CPU per invoice: daemon + gateway processes', value: median(nodeUs), unit: 'µs', runs: nodeUs, pass: null },
      { name: 'CPU per invoice: PostgreSQL (all its processes)', value: median(pgUs), unit: 'µs', runs: pgUs, pass: null },
      { name: 'CPU per invoice: load generator', value: median(loadUs), unit: 'µs', runs: loadUs, pass: null },
      { name: 'Cores 2,000 invoices/s take at this CPU per invoice (all processes)', value: coresFor(perInvoice, 2000), unit: 'cores', pass: null },
      { name: 'CPU per INSERT of the baseline: its PostgreSQL backends + its client', value: perInsert.totalUs, unit: 'µs', pass: null },
    ],
    notes: [
      `What limits it in this run: an invoice cost ${describeBudget(perInvoice)} of CPU on ${perInvoice.cores} cores, which caps them at ${fmt(perInvoice.ceilingPerSecond, '/s')}; the run sustained ${fmt(t, '/s')}, ${fmt((100 * t) / perInvoice.ceilingPerSecond, '%')} of that (the rest went idle while the four processes waited on each other, or to other processes). 2,000/s would take ${fmt(coresFor(perInvoice, 2000), 'cores')} at this cost. An INSERT of the baseline cost ${describeBudget(perInsert)}, its own PostgreSQL backends only: ${fmt(perInvoice.totalUs / perInsert.totalUs, '')} times less than an invoice. This run's ${fmt(b, 'INSERT/s')} are 1/${fmt(30000 / b, '')} of the ~30,000/s the issue saw on its reference machine.`,
      `Each request: POST /v1/invoices with a JSON body (amount, network ${CREATE_NETWORK}, a unique order_id, title, metadata) signed with HMAC-SHA256, over keep-alive HTTP/1.1 from a separate load-generator process; a 201 with the full invoice (QR code included) counts.`,
      `Sustained: ${CREATE_CONCURRENCY} closed-loop clients, ${ctx.ms(2000) / 1000} s warm-up, then ${ctx.ms(8000) / 1000} s measured. Latency: an open-loop schedule at half the sustained rate measured in the same run; latency counts from the scheduled send time, so queueing is included.`,
      `The address pool is sized for the rate (ADDRESS_POOL_MIN_FREE=${POOL_MIN_FREE}, ADDRESS_POOL_BATCH=${POOL_BATCH}); refills (address derivation) run during the measurement, as they would in production.`,
      'Baseline: the same number of clients, each on its own connection, running autocommit single-row INSERTs of all invoice columns (a fresh uuid and order_id each) into a copy of the invoices table with the same indexes and constraints, in the same PostgreSQL; each waits for its WAL flush (synchronous_commit stays on, as money needs).',
      "What limits the throughput: CPU, shared by the daemon, the gateway, PostgreSQL and the load generator. A batch of one network's new invoices is one statement (group commit) and pool refills derive on a worker thread; in a CPU profile no item of the daemon's thread exceeds ~15% of its busy time (the pg driver's writes, V8 and GC, the QR code, XState).",
      "What limits the p99 at half rate: a creation waits for its network's insert statement in flight, so a window's p99 is set by its few slow statements (25-70 ms, commit included) and by a major GC of the daemon if one falls in it. On 2-core VMs it passes or misses from one full run to the next.",
      ...errors.map((e) => `Errors: ${e}`),
    ],
  };
}

export const POOL_MIN_FREE = 1000;
export const POOL_BATCH = 2000;

function fmtRates(rates: readonly number[]): string {
  return rates.map((r) => `${r}/s`).join(', ');
}

async function insertBaseline(server: Server, merchant: Merchant, run: number, ctx: BenchContext) {
  await server.child.call('sql', { text: 'create table if not exists bench_invoices (like invoices including all)' });
  const rows = await server.child.call<Record<string, unknown>[]>('sql', { text: 'select * from invoices where merchant_id = ? and network is not null limit 1', params: [merchant.merchantId] });
  const sample = rows[0];
  if (!sample) throw new Error('no invoice to copy for the INSERT baseline');
  const columns = Object.keys(sample);
  const params: SqlParam[] = columns.map((c) => {
    if (c === 'uuid') return { uuid: true };
    if (c === 'order_id') return { seq: `base-${run}` };
    const v = sample[c];
    return { value: v !== null && typeof v === 'object' ? JSON.stringify(v) : v };
  });
  return {
    url: server.started.databaseUrl,
    concurrency: CREATE_CONCURRENCY,
    warmupMs: ctx.ms(1000),
    durationMs: ctx.ms(6000),
    sql: `insert into bench_invoices (${columns.join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
    params,
  };
}
