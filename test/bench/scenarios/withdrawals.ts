import type { Child } from '../support/ipc';
import type { BurstResult } from '../support/http-load';
import type { SqlBurstResult } from '../support/sql-load';
import { profiled, startServer, type BenchContext, type Server } from '../support/context';
import type { ScenarioReport } from '../support/report';
import { median } from '../support/stats';
import { embeddedPostgresPid, treeCpuMs } from '../support/cpu';
import { describeBudget, serviceBudget, sqlBaselineBudget } from '../support/cpu-budget';
import { fmt } from '../support/report';
import { WithdrawalSetup } from '../support/withdrawal-setup';

const NETWORK = 'TRC20';
const REQUESTS = 1000;
const MERCHANTS = 100;
/** Every other request is the hot merchant's. */
const HOT_SHARE = 2;
const AMOUNT = '2';
/** The hot merchant's balance covers 400 of its 500 requests: 100 must be refused. */
const HOT_FUND = '800';
/** Each other merchant makes 5 requests of 2 and has exactly 10. */
const COLD_FUND = '10';
/** The daemon's database pool (src/store/orm.ts): the baseline gets as many connections. */
const POOL = 20;
const BASELINE_BURSTS = 5;
/** Measured bursts per run: the run's figures are their medians, as the baseline's are of its bursts. */
const BURSTS_PER_RUN = 3;

type Merchant = { merchantId: string; apiKey: string; apiSecret: string };
type Body = { error?: { code?: string }; status?: string; uuid?: string };

/**
 * 6. 1,000 withdrawal requests in flight at once (each on its own connection), half from one hot
 * merchant, half spread over 100 others, through the signed REST API: HMAC at the gateway -> gRPC
 * -> the merchant's row lock, the rolling cap sum, the balance check, the row, the hold journal
 * and the outbox event in one transaction. Checked after each burst: no overdraft, the exact
 * number granted per merchant, the ledger balances to the last digit.
 * Baseline: the same 1,000 debits as raw `UPDATE ... SET available = available - $1 WHERE
 * merchant_id = $2 AND available >= $1` statements, all at once over as many connections as the
 * daemon's pool, on a balances table funded the same way, in the same PostgreSQL.
 */
/** Bursts before the measured ones (JIT: see the notes). */
const WARM_UP_BURSTS = 3;

export async function withdrawalsUnderContention(ctx: BenchContext, load: Child): Promise<ScenarioReport> {
  // PAYOUT_POLL_INTERVAL_MS: the live default (devnet polls every 250 ms to keep the tests fast;
  // 900 payouts polled 4 times a second would measure devnet, not the request path).
  const server = await startServer(ctx, 'withdrawals', { TRC20_CONFIRMATIONS: '1', TRC20_MIN_WITHDRAWAL: '1', TRC20_WITHDRAWAL_FEE: '1', PAYOUT_POLL_INTERVAL_MS: '5000' }, { layout: ctx.layout });
  const setup = new WithdrawalSetup(server, NETWORK);
  try {
    const hot = await server.merchant('Hot shop');
    const cold: Merchant[] = [];
    for (let i = 0; i < MERCHANTS; i++) cold.push(await server.merchant(`Shop ${i}`));
    const all = [hot, ...cold];
    const address = new Map(all.map((m) => [m.merchantId, setup.payoutAddress(m.merchantId)]));
    for (const m of all) {
      await setup.caps(m.merchantId, '1000000', '100000000');
      await setup.whitelist(m.merchantId, address.get(m.merchantId)!);
    }
    await setup.advance(25 * 60 * 60);
    await server.child.call('sql', { text: 'create table bench_balances (merchant_id uuid primary key, available numeric(38, 18) not null check (available >= 0))' });

    // Request i: the hot merchant when i is even, else cold merchant (i >> 1) % 100.
    const owner = (i: number): Merchant => (i % HOT_SHARE === 0 ? hot : cold[(i >> 1) % MERCHANTS]!);
    const throughput: number[] = [];
    const p50: number[] = [];
    const p99: number[] = [];
    const baseline: number[] = [];
    const problems: string[] = [];
    let checks = 0;

    // WARM_UP_BURSTS bursts warm the daemon and the gateway up (JIT, prepared statements on the
    // pool, caches), as the other scenarios' warm-up windows do: checked like the others, not
    // measured. Then each run is BURSTS_PER_RUN bursts (its figures: their medians) and the baseline.
    const pg = embeddedPostgresPid(server.dataDir);
    const nodeUs: number[] = [];
    const pgUs: number[] = [];
    const loadUs: number[] = [];
    const updatePgUs: number[] = [];
    const updateClientUs: number[] = [];
    let burstsDone = 0;
    /** One burst of REQUESTS at once, checked, then every payout it started settled. */
    const oneBurst = async (tag: string, label: string): Promise<{ throughput: number; p50: number; p99: number; serverUs: number; postgresUs: number; loadUs: number }> => {
      const t0 = Date.now();
      await setup.fund([hot.merchantId], HOT_FUND);
      await setup.fund(
        cold.map((m) => m.merchantId),
        COLD_FUND,
      );
      ctx.log(`  withdrawals ${label}: ${all.length} merchants funded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      const posts = Array.from({ length: REQUESTS }, (_, i) => {
        const m = owner(i);
        return {
          path: '/v1/withdrawals',
          apiKey: m.apiKey,
          apiSecret: m.apiSecret,
          body: JSON.stringify({ network: NETWORK, address: address.get(m.merchantId), amount: AMOUNT, reference: `${tag}-${i}` }),
        };
      });
      const cpu0 = await server.cpu();
      const gw0 = server.gateway ? await server.gateway.call<number>('cpu') : 0;
      const pg0 = pg ? treeCpuMs(pg) : 0;
      const res = await profiled(ctx, server, `withdrawals-${tag}`, () =>
        load.call<BurstResult>('burst', { mode: 'burst', port: server.started.httpPort, count: REQUESTS, request: { kind: 'posts', posts } }),
      );
      // CPU from the first request to the last answer (payouts the burst started included).
      const serverUs = (((await server.cpu()) - cpu0) * 1000) / REQUESTS;
      const gatewayUs = server.gateway ? (((await server.gateway.call<number>('cpu')) - gw0) * 1000) / REQUESTS : 0;
      const postgresUs = (((pg ? treeCpuMs(pg) : 0) - pg0) * 1000) / REQUESTS;
      checks += await verify(server, res, tag, hot, cold, owner, problems);
      burstsDone++;
      ctx.log(
        `  withdrawals ${label}: ${REQUESTS} at once in ${res.elapsedMs.toFixed(0)} ms = ${res.throughput.toFixed(0)}/s; statuses ${JSON.stringify(res.statuses)}; CPU per request: server ${serverUs.toFixed(0)} µs (gateway ${gatewayUs.toFixed(0)}), PostgreSQL ${postgresUs.toFixed(0)} µs, load generator ${((res.clientCpuMs * 1000) / REQUESTS).toFixed(0)} µs; answered (first / median / last): hot merchant ${answerTimes(res, (i) => owner(i) === hot)}, the others ${answerTimes(res, (i) => owner(i) !== hot)}`,
      );
      // Steady state before the next burst (and the baseline): every payout of this burst completes.
      const t1 = Date.now();
      await setup.settlePayouts(async () => Number((await server.child.call<{ n: string }[]>('sql', { text: 'select count(*)::text as n from withdrawals where open' }))[0]!.n));
      ctx.log(`  withdrawals ${label}: all payouts completed ${((Date.now() - t1) / 1000).toFixed(1)} s after the burst`);
      return { throughput: res.throughput, p50: res.latency.p50, p99: res.latency.p99, serverUs, postgresUs, loadUs: (res.clientCpuMs * 1000) / REQUESTS };
    };
    const burstsPerRun = ctx.quick ? 1 : BURSTS_PER_RUN;
    for (let w = 1; w <= WARM_UP_BURSTS; w++) await oneBurst(`w${w}`, `warm-up burst ${w}`);
    for (let run = 1; run <= ctx.runs; run++) {
      const measured: Awaited<ReturnType<typeof oneBurst>>[] = [];
      for (let k = 1; k <= burstsPerRun; k++) measured.push(await oneBurst(`r${run}b${k}`, `run ${run} burst ${k}`));
      const mid = (pick: (m: (typeof measured)[number]) => number) => median(measured.map(pick));
      throughput.push(mid((m) => m.throughput));
      p50.push(mid((m) => m.p50));
      p99.push(mid((m) => m.p99));
      nodeUs.push(mid((m) => m.serverUs));
      pgUs.push(mid((m) => m.postgresUs));
      loadUs.push(mid((m) => m.loadUs));
      ctx.log(`  withdrawals run ${run}: median of ${burstsPerRun} bursts ${mid((m) => m.throughput).toFixed(0)}/s (${measured.map((m) => m.throughput.toFixed(0)).join(', ')})`);

      const bursts: number[] = [];
      const baseCpu: number[] = [];
      const basePg: number[] = [];
      for (let b = 0; b < BASELINE_BURSTS; b++) {
        const base = await load.call<SqlBurstResult>('sqlBurst', {
          url: server.started.databaseUrl,
          connections: POOL,
          setup: ['truncate bench_balances', `insert into bench_balances values ${all.map((m) => `('${m.merchantId}', ${m === hot ? HOT_FUND : COLD_FUND})`).join(', ')}`],
          sql: 'update bench_balances set available = available - $1 where merchant_id = $2 and available >= $1',
          params: Array.from({ length: REQUESTS }, (_, i) => [AMOUNT, owner(i).merchantId]),
        });
        if (base.errors || base.changed !== REQUESTS - 100)
          problems.push(`baseline run ${run}: ${base.changed} debits granted (expected ${REQUESTS - 100}), ${base.errors} errors ${base.firstError ?? ''}`);
        bursts.push(base.throughput);
        baseCpu.push((base.clientCpuMs * 1000) / REQUESTS);
        basePg.push((base.backendCpuMs * 1000) / REQUESTS);
      }
      baseline.push(median(bursts));
      updatePgUs.push(median(basePg));
      updateClientUs.push(median(baseCpu));
      ctx.log(
        `  withdrawals run ${run}: baseline ${median(bursts).toFixed(0)} UPDATE/s (bursts: ${bursts.map((b) => b.toFixed(0)).join(', ')}); CPU per UPDATE: load generator ${median(baseCpu).toFixed(0)} µs, its PostgreSQL backends ${median(basePg).toFixed(0)} µs`,
      );
    }

    const t = median(throughput);
    const b = median(baseline);
    const perRequest = serviceBudget({ server: nodeUs, postgres: pgUs, load: loadUs });
    const perUpdate = sqlBaselineBudget({ backends: updatePgUs, client: updateClientUs });
    const cpuBoundRatio = perUpdate.totalUs / perRequest.totalUs;
    /** The cores' share the burst's CPU filled (an overestimate: its CPU is counted over a little more than the burst). */
    const burstUse = t / perRequest.ceilingPerSecond;
    return {
      id: 6,
      title: 'Withdrawals under contention',
      figures: [
        {
          name: `Withdrawal requests per second, ${REQUESTS} at once (1 hot + ${MERCHANTS} merchants)`,
          value: t,
          unit: '/s',
          runs: throughput,
          baseline: { name: `raw UPDATE … WHERE available >= $1, ${POOL} connections`, value: b, unit: '/s', runs: baseline },
          ratio: t / b,
          target: 'ratio ≥ 0.5',
          pass: t / b >= 0.5,
        },
        { name: 'Overdrafts, wrong grants or ledger mismatches', value: problems.length, unit: '', target: '0', pass: problems.length === 0 },
        { name: 'p50 latency in the burst', value: median(p50), unit: 'ms', runs: p50, pass: null },
        { name: 'p99 latency in the burst', value: median(p99), unit: 'ms', runs: p99, pass: null },
        { name: 'CPU per request in the burst: daemon + gateway processes', value: median(nodeUs), unit: 'µs', runs: nodeUs, pass: null },
        { name: 'CPU per request in the burst: PostgreSQL (all its processes)', value: median(pgUs), unit: 'µs', runs: pgUs, pass: null },
        { name: 'CPU per request in the burst: load generator', value: median(loadUs), unit: 'µs', runs: loadUs, pass: null },
        { name: 'CPU per UPDATE of the baseline: its PostgreSQL backends + its client', value: perUpdate.totalUs, unit: 'µs', pass: null },
        { name: 'Ratio if both were bound by CPU alone (CPU per UPDATE / CPU per request)', value: cpuBoundRatio, unit: '', pass: null },
      ],
      notes: [
        `What limits it in this run: a withdrawal request cost ${describeBudget(perRequest)} of CPU over the burst, the payouts and webhook events it starts included; a baseline UPDATE ${describeBudget(perUpdate)}, its own PostgreSQL backends only (the service's share counts every PostgreSQL process). All of it runs on the same ${perRequest.cores} cores. The baseline ran at ${fmt((100 * b) / perUpdate.ceilingPerSecond, '%')} of the ${fmt(perUpdate.ceilingPerSecond, 'UPDATE/s')} its CPU allows (the rest of the time it waits for row locks and WAL flushes); ${burstUse >= 0.9 ? 'the burst kept the cores busy throughout' : `the burst kept them about ${fmt(100 * burstUse, '%')} busy`}. Were both bound by CPU alone, the ratio would be ${fmt(cpuBoundRatio, '')}; it was ${fmt(t / b, '')}.`,
        `Each run funds the hot merchant with ${HOT_FUND} USDT and each of the ${MERCHANTS} others with ${COLD_FUND} USDT, then sends ${REQUESTS} signed POST /v1/withdrawals of ${AMOUNT} USDT (${NETWORK}, each with its own reference) at once, each on its own connection: ${REQUESTS / HOT_SHARE} from the hot merchant (its balance covers 400), 5 from each other one (exactly their balance). Between bursts every payout is mined to completion, so each burst starts with no withdrawal open.`,
        `${WARM_UP_BURSTS} warm-up bursts (checked like the others) come first: the first bursts after start run slower while V8 still compiles the request path. Bursts swing widely on these VMs, so each run is the median of ${burstsPerRun} bursts.`,
        `After each burst (${burstsDone} in this scenario) ${checks / burstsDone} facts are checked: 900 answered 201 and 100 answered 422 insufficient_balance, all refused ones are the hot merchant's, every merchant's available balance is 0, no balance is negative, every journal sums to zero and every balance equals the sum of its ledger entries, one withdrawal row per 201.`,
        `Baseline: the same ${REQUESTS} debits in the same order as autocommit UPDATE statements on a two-column balances table, all issued at once over a pool of ${POOL} connections (the daemon's pool size), median of ${BASELINE_BURSTS} bursts per run; it must grant exactly ${REQUESTS - 100}.`,
        "What limits it: CPU, and the hot merchant's lock. A withdrawal does far more than an UPDATE: the HMAC check, the merchants' rows locked in id order, one read under the locks (cap sums, balances, whitelists, references), one insert of the rows and their outbox events, the holds in one statement, COMMIT; then an actor pays out (status polled every 5 s, PAYOUT_POLL_INTERVAL_MS=5000, the live default; one payout step at a time while creations are in flight) and 900 withdrawal.processing events are set aside in bulk as unaddressed, for want of a webhook URL. The hot merchant's requests wait behind its lock for a whole transaction, where the baseline holds a row for one statement.",
        ...problems.map((p) => `Problem: ${p}`),
      ],
    };
  } finally {
    setup.close();
    await server.stop();
  }
}

/** First, median and last answer time of the requests `pick` selects, e.g. "120 / 210 / 395 ms". */
function answerTimes(res: BurstResult, pick: (i: number) => boolean): string {
  const times = res.answeredMs.filter((t, i) => pick(i) && Number.isFinite(t));
  return `${Math.min(...times).toFixed(0)} / ${median(times).toFixed(0)} / ${Math.max(...times).toFixed(0)} ms`;
}

/** The burst's answers and the books afterwards; returns how many facts were checked. */
async function verify(server: Server, res: BurstResult, run: string, hot: Merchant, cold: readonly Merchant[], owner: (i: number) => Merchant, problems: string[]): Promise<number> {
  const bodies = res.bodies.map((b) => (b ? (JSON.parse(b) as Body) : {}));
  const created = bodies.filter((b) => b.uuid && b.status).length;
  const refused = bodies.map((b, i) => ({ b, i })).filter(({ b }) => b.error !== undefined);
  if (res.statuses['201'] !== REQUESTS - 100 || created !== REQUESTS - 100)
    problems.push(`run ${run}: ${res.statuses['201'] ?? 0} answered 201 (expected ${REQUESTS - 100}): ${JSON.stringify(res.statuses)}`);
  if (res.statuses['422'] !== 100 || refused.some(({ b }) => b.error?.code !== 'insufficient_balance'))
    problems.push(`run ${run}: refusals ${JSON.stringify(res.statuses)}, codes ${[...new Set(refused.map(({ b }) => b.error?.code))].join(',')}`);
  if (refused.some(({ i }) => owner(i) !== hot)) problems.push(`run ${run}: a merchant other than the hot one was refused`);
  const sql = <T>(text: string, params: unknown[] = []) => server.child.call<T[]>('sql', { text, params });
  const balances = await sql<{ merchant_id: string; available: string }>('select merchant_id, available::text as available from merchant_balances');
  const ids = new Set([hot.merchantId, ...cold.map((m) => m.merchantId)]);
  const nonZero = balances.filter((b) => ids.has(b.merchant_id) && Number(b.available) !== 0);
  if (nonZero.length) problems.push(`run ${run}: ${nonZero.length} merchants with an available balance left, e.g. ${JSON.stringify(nonZero[0])}`);
  const negative = await sql('select merchant_id from merchant_balances where available < 0 or held < 0');
  if (negative.length) problems.push(`run ${run}: negative balances ${JSON.stringify(negative)}`);
  const unbalanced = await sql('select journal_id from ledger_entries group by journal_id having sum(amount) <> 0');
  if (unbalanced.length) problems.push(`run ${run}: ${unbalanced.length} journals do not sum to zero`);
  const mismatched = await sql(
    `select b.merchant_id from merchant_balances b
      where b.available <> coalesce((select sum(amount) from ledger_entries e where e.account = 'merchant:' || b.merchant_id || ':available'), 0)
         or b.held <> coalesce((select sum(amount) from ledger_entries e where e.account = 'merchant:' || b.merchant_id || ':held'), 0)`,
  );
  if (mismatched.length) problems.push(`run ${run}: ${mismatched.length} balances differ from their ledger entries`);
  const rows = await sql<{ n: string }>('select count(*)::text as n from withdrawals where reference like ?', [`${run}-%`]);
  if (Number(rows[0]!.n) !== REQUESTS - 100) problems.push(`run ${run}: ${rows[0]!.n} withdrawal rows for ${REQUESTS - 100} granted`);
  return 9;
}
