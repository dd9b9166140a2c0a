import fs from 'node:fs';
import { createActor } from 'xstate';
import { invoiceMachine } from '../../../src/domain/invoice-machine';
import { createInvoiceContext } from '../../../src/domain/invoice-context';
import { NETWORK_FACTS } from '../../../src/domain/networks';
import { startLoadgen, startServer, type BenchContext, type Server } from '../support/context';
import type { HeapReport } from '../children/server';
import type { ScenarioReport } from '../support/report';
import { median } from '../support/stats';

const ACTORS = 100_000;
const HEAP_FLAGS = ['--max-old-space-size=1024'];
const TEMPLATE_UUID = '00000000-0000-4000-8000-000000000000';
const MiB = 2 ** 20;

/**
 * 3. 100,000 open invoices in one daemon: heap with all their actors live, and the restart that
 * rehydrates them. The rows are written in bulk with SQL (not through the API, to keep the bench
 * short) in exactly the shape the API writes: pending POLYGON invoices with an allocated deposit
 * address each, and the persisted XState snapshot of a new invoice actor.
 * Baseline of the restart: the same rows read with raw SQL and JSON.parse.
 */
export async function liveActors(ctx: BenchContext): Promise<ScenarioReport> {
  const n = ctx.quick ? 10_000 : ACTORS;
  let server: Server | null = await startServer(ctx, 'actors', {}, { nodeFlags: HEAP_FLAGS });
  const load = startLoadgen();
  try {
    const empty = await server.child.call<HeapReport>('heap');
    const merchant = await server.merchant();
    const t0 = Date.now();
    await bulkInsert(server, merchant.merchantId, n);
    ctx.log(`  ${n} invoices written with SQL in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await server.stop();
    server = null;

    const restoreMs: number[] = [];
    const readyMs: number[] = [];
    const startMs: number[] = [];
    const heapUsed: number[] = [];
    const baselineMs: number[] = [];
    let restored = 0;
    let heapLimit = 0;
    for (let run = 1; run <= ctx.runs; run++) {
      server = await startServer(ctx, `actors-restart-${run}`, {}, { nodeFlags: HEAP_FLAGS, dataDir: `${ctx.root}/actors` });
      const log = await startupTimes(server.logFile);
      restored = log.restored;
      restoreMs.push(log.restoreMs);
      readyMs.push(log.readyMs);
      startMs.push(server.started.startMs);
      const heap = await server.child.call<HeapReport>('heap');
      heapUsed.push(heap.heapUsed);
      heapLimit = heap.heapLimit;
      const base = await load.call<{ rows: number; ms: number }>('readSnapshots', { url: server.started.databaseUrl, batch: 1000 });
      baselineMs.push(base.ms);
      ctx.log(
        `  restart ${run}: ${log.restored} actors rehydrated in ${log.restoreMs} ms, ${log.phases} (ready after ${log.readyMs} ms; startDaemon ${server.started.startMs.toFixed(0)} ms); heap ${(heap.heapUsed / MiB).toFixed(0)} MiB; baseline read+parse ${base.ms.toFixed(0)} ms`,
      );
      await server.stop();
      server = null;
    }
    const heap = median(heapUsed);
    const perActor = (heap - empty.heapUsed) / n;
    const restore = median(restoreMs);
    const baseline = median(baselineMs);
    return {
      id: 3,
      title: `Live invoice actors (${n.toLocaleString('en-US')})`,
      figures: [
        {
          name: `Heap used with ${n.toLocaleString('en-US')} open invoice actors (after GC)`,
          value: heap / MiB,
          unit: 'MiB',
          runs: heapUsed.map((h) => h / MiB),
          baseline: { name: 'same daemon with no invoices', value: empty.heapUsed / MiB, unit: 'MiB' },
          target: '≤ 1,024 MiB',
          pass: heap <= 1024 * MiB && restored >= n,
        },
        { name: 'Heap per open invoice actor', value: perActor / 1024, unit: 'KiB', pass: null },
        {
          name: `Restart: rehydrate ${n.toLocaleString('en-US')} actors`,
          value: restore / 1000,
          unit: 's',
          runs: restoreMs.map((v) => v / 1000),
          baseline: { name: 'raw SQL + JSON.parse of the same rows', value: baseline / 1000, unit: 's', runs: baselineMs.map((v) => v / 1000) },
          ratio: baseline / restore,
          target: '< 10 s',
          pass: restore < 10_000 && restored >= n,
        },
        {
          name: 'Restart: database ready -> actors resumed and watchers caught up',
          value: median(readyMs) / 1000,
          unit: 's',
          runs: readyMs.map((v) => v / 1000),
          target: '< 10 s',
          pass: median(readyMs) < 10_000,
        },
        { name: 'Restart: whole startDaemon (embedded PostgreSQL start included)', value: median(startMs) / 1000, unit: 's', runs: startMs.map((v) => v / 1000), pass: null },
      ],
      notes: [
        `The daemon runs with ${HEAP_FLAGS.join(' ')} (V8 heap limit ${(heapLimit / MiB).toFixed(0)} MiB): it would fail with an out-of-memory error, not report, if the actors did not fit. Heap is heapUsed after three full GCs; the empty daemon's heap is measured the same way before the rows exist.`,
        `Rows: ${n.toLocaleString('en-US')} pending POLYGON invoices of one merchant, each with its own allocated deposit address row, expiring in 3 days, written with two INSERT … SELECT statements (generated uuids and addresses, the persisted snapshot of a real new actor with the uuid substituted) rather than through the API, to keep the bench short. ${restored.toLocaleString('en-US')} open actors were rehydrated.`,
        '"Rehydrate" is the daemon\'s restore of every open invoice (keyset pages of 1,000 rows: query, JSON snapshot, XState actor started), logged as `invoice actors rehydrated`; "database ready -> resumed" adds the watchers\' catch-up and the RESUME of every actor (timers re-armed; a RESUME that only moves the machine\'s clock writes nothing). The ratio is baseline time / our time.',
        'What limits the heap: each open invoice is an XState actor with its context, snapshot and timer entry (actors share XState systems, 64 per supervisor; timers share one Node timer).',
        "What limits the restart: XState's cost of creating each actor from its snapshot, much of it garbage collection; the watchers start in a fraction of a second, and an actor with nothing due is resumed later by one daemon-clock timer, not at start.",
      ],
    };
  } finally {
    await server?.stop();
    await load.stop();
  }
}

/** The persisted snapshot of a brand-new invoice actor, as the API stores it, uuid templated. */
function templateSnapshot(expiresAt: Date, now: Date): string {
  const actor = createActor(invoiceMachine, {
    input: createInvoiceContext({ uuid: TEMPLATE_UUID, payAmount: '25.755', requiredConfirmations: 64, expiresAt, now, lateWindowMs: 24 * 3_600_000, underpaymentTolerance: '0' }),
  });
  actor.start();
  const snapshot = JSON.stringify(actor.getPersistedSnapshot());
  actor.stop();
  return snapshot;
}

async function bulkInsert(server: Server, merchantId: string, n: number): Promise<void> {
  const now = new Date();
  const expiresAt = new Date(now.getTime() + 3 * 24 * 3_600_000);
  const token = NETWORK_FACTS.POLYGON.mainnetToken;
  const snapshot = templateSnapshot(expiresAt, now);
  for (let from = 1; from <= n; from += 25_000) {
    const to = Math.min(n, from + 24_999);
    await server.child.call('sql', {
      text: `with g as (
          select gen_random_uuid() as uuid, i, '0x' || substr(md5(i::text || 'chainpay-bench'), 1, 32) || substr(md5(i::text), 1, 8) as address
          from generate_series(?::int, ?::int) as i)
        insert into invoices (uuid, merchant_id, order_id, status, title, amount, currency, platform_fee, network_fee, pay_amount, merchant_net, fee_payer,
          network, address, memo, received_amount, confirmations, required_confirmations, tx_hash, payment_uri, metadata_json, webhook_url, return_url,
          cancel_url, expires_at, paid_at, paid_late, booked_received, open, closed_at, actor_snapshot, created_at, updated_at, version)
        select uuid, ?, 'bulk-' || i, 'pending', 'Bulk order', 25.5, 'USDT', 0.255, 0, 25.755, 25.5, 'buyer',
          'POLYGON', address, null, 0, 0, 64, null, ? || address || '&uint256=25755000', '{"cart":["sku-1"]}', null, null,
          null, ?, null, false, 0, true, null, replace(?, ?, uuid::text)::jsonb, ?, ?, 1
        from g`,
      // Literals with a `?` go in as parameters (knex reads every `?` as a placeholder).
      params: [from, to, merchantId, `ethereum:${token}@137/transfer?address=`, expiresAt, snapshot, TEMPLATE_UUID, now, now],
    });
  }
  // Each invoice holds its own address, as allocation leaves it (indexes far above the derived pool).
  await server.child.call('sql', {
    text: `insert into deposit_addresses (network, index_space, derivation_index, address, normalized, state, invoice_uuid, allocated_at, created_at)
      select 'POLYGON', 'evm', 10000000 + row_number() over (order by uuid), address, lower(address), 'allocated', uuid, created_at, created_at
      from invoices where merchant_id = ? and order_id like 'bulk-%'`,
    params: [merchantId],
  });
  await server.child.call('sql', { text: 'analyze invoices' });
  await server.child.call('sql', { text: 'analyze deposit_addresses' });
}

type LogLine = { msg?: string; time?: number; ms?: number; restoredInvoices?: number };

/**
 * From the server's log: invoices rehydrated and how long it took; database ready -> all resumed.
 * The daemon writes its log in batches (flushed at least every 100 ms, src/observability/logger.ts),
 * so the start-up lines may reach the file a little after start-up returned: read again for up to 2 s.
 */
async function startupTimes(logFile: string): Promise<{ restored: number; restoreMs: number; readyMs: number; phases: string }> {
  const read = () =>
    fs
      .readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((l): LogLine => {
        try {
          return JSON.parse(l) as LogLine;
        } catch {
          return {};
        }
      });
  let lines = read();
  const last = (msg: string) => [...lines].reverse().find((l) => l.msg === msg);
  const complete = () => last('database ready, migrations applied') && last('invoice actors rehydrated') && last('actors restored and watchers caught up');
  for (const waitUntil = Date.now() + 2_000; !complete() && Date.now() < waitUntil; lines = read()) await new Promise((r) => setTimeout(r, 50));
  const ready = last('database ready, migrations applied');
  const rehydrated = last('invoice actors rehydrated');
  const resumed = last('actors restored and watchers caught up');
  if (!ready || !rehydrated || !resumed) throw new Error(`start-up log lines missing in ${logFile} (2 s after start-up)`);
  const phases = `watchers ${last('watchers started and caught up')?.ms ?? '?'} ms, resume ${last('invoice actors resumed')?.ms ?? '?'} ms`;
  return { restored: rehydrated.restoredInvoices ?? 0, restoreMs: rehydrated.ms ?? NaN, readyMs: (resumed.time ?? NaN) - (ready.time ?? NaN), phases };
}
