import { spawnSync } from 'node:child_process';
import net from 'node:net';
import { Client } from 'pg';
import { createMerchant, eventually, type MerchantCredentials, type Stack, startStack } from '../support/stack';
import { createInvoice, payAndConfirm } from '../invoices/helpers';
import { health } from './support';
import pino from 'pino';
import type { NetworkCode } from '../../src/domain/networks';
import type { NetworkWatcher, WatcherStatusView } from '../../src/actors/watchers/network-watcher';
import { HealthMonitor } from '../../src/observability/health-monitor';

function promtool(): string | null {
  const found = spawnSync('sh', ['-c', 'command -v promtool'], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : null;
}

/** The value of one sample line, e.g. series('chainpay_watcher_lag_blocks{network="TON"}'). */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('operator plane: metrics and health', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  let scrape: () => Promise<{ status: number; type: string | null; text: string }>;
  beforeAll(async () => {
    stack = await startStack({ env: { METRICS_PORT: '0' } });
    m = await createMerchant(stack);
    scrape = async () => {
      const res = await fetch(`http://127.0.0.1:${stack.daemon.metricsPort}/metrics`);
      return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
    };
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('exposes the named series on /metrics (METRICS_PORT) and they pass promtool', async () => {
    expect(stack.daemon.metricsPort).toEqual(expect.any(Number));
    const inv = await createInvoice(stack, m, { amount: '10', network: 'TON' });
    await payAndConfirm(stack, m, inv, inv.pay_amount, 'paid');
    await createInvoice(stack, m, { amount: '2', network: 'TRC20' });

    const { status, type, text } = await scrape();
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain; version=0\.0\.4/);
    for (const network of ['TRC20', 'BEP20', 'TON', 'POLYGON', 'ARBITRUM', 'SOLANA']) {
      expect(sample(text, `chainpay_watcher_lag_blocks{network="${network}"}`)).toBe(0);
      expect(sample(text, `chainpay_watcher_lag_seconds{network="${network}"}`)).toBe(0);
      expect(sample(text, `chainpay_watcher_rpc_healthy{network="${network}"}`)).toBe(1);
      expect(sample(text, `chainpay_watcher_state{network="${network}",state="running"}`)).toBe(1);
      expect(sample(text, `chainpay_watcher_rpc_errors_total{network="${network}",code="rpc_unavailable"}`)).toBe(0);
      // One run loop for every family: the same figures for each network.
      expect(sample(text, `chainpay_watcher_loop_steps_total{network="${network}"}`)).toBeGreaterThan(0);
      expect(sample(text, `chainpay_watcher_loop_retries_total{network="${network}"}`)).toBe(0);
    }
    expect(sample(text, 'chainpay_watcher_head_block{network="TON"}')).toBeGreaterThan(0);
    expect(sample(text, 'chainpay_watcher_block_processing_seconds_count{network="TON"}')).toBeGreaterThan(0);
    expect(sample(text, 'chainpay_actors_open{kind="invoice",status="paid"}')).toBe(1);
    expect(sample(text, 'chainpay_actors_open{kind="invoice",status="pending"}')).toBe(1);
    expect(sample(text, 'chainpay_actors_open{kind="watcher",status="running"}')).toBe(6);
    expect(sample(text, 'chainpay_invoice_outcomes_total{status="paid"}')).toBe(1);
    expect(sample(text, 'chainpay_invoice_outcomes_total{status="expired"}')).toBe(0);
    expect(sample(text, 'chainpay_webhook_queue_depth')).toEqual(expect.any(Number));
    expect(sample(text, 'chainpay_webhook_failed_attempts_total')).toEqual(expect.any(Number));
    expect(sample(text, 'chainpay_webhook_events{status="pending"}')).toEqual(expect.any(Number));
    expect(sample(text, 'chainpay_withdrawals_in_review')).toBe(0);
    expect(sample(text, 'chainpay_ledger_balance{account="merchant:*:available"}')).toBe(10);
    expect(sample(text, 'chainpay_database_up')).toBe(1);
    expect(text).toMatch(/^process_cpu_seconds_total /m);

    const tool = promtool();
    if (!tool) throw new Error('promtool not found: apt-get install prometheus (.ci/run installs it)');
    const checked = spawnSync(tool, ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect({ status: checked.status, out: `${checked.stdout}${checked.stderr}` }).toEqual({ status: 0, out: '' });
    expect((await fetch(`http://127.0.0.1:${stack.daemon.metricsPort}/other`)).status).toBe(404);
  });

  it('a failing webhook endpoint raises chainpay_webhook_queue_depth and chainpay_webhook_failed_attempts_total', async () => {
    // A local port nobody listens on: every delivery is refused (WEBHOOK_ALLOW_PRIVATE_TARGETS=1 in tests).
    const closedPort = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    // The first test's events have no URL: they leave the queue once the dispatcher fails them
    // (deferred while requests are in flight). Start from an empty queue, or one of them leaving
    // during this test would hide one of ours (CI saw depth 2 after, 1 before).
    const before = await eventually(
      async () => {
        const text = (await scrape()).text;
        return sample(text, 'chainpay_webhook_queue_depth') === 0 ? text : undefined;
      },
      10_000,
      'the queue drained of events without a URL',
    );
    const depth0 = sample(before, 'chainpay_webhook_queue_depth')!;
    const failed0 = sample(before, 'chainpay_webhook_failed_attempts_total')!;
    expect([depth0, failed0].every(Number.isFinite)).toBe(true);

    const down = await createMerchant(stack, { name: 'Down shop', webhook_url: `https://127.0.0.1:${closedPort}/hook` });
    const inv = await createInvoice(stack, down, { amount: '3', network: 'TON' });
    await payAndConfirm(stack, down, inv, inv.pay_amount, 'paid'); // invoice.confirming, invoice.paid
    const after = await eventually(
      async () => {
        const text = (await scrape()).text;
        return sample(text, 'chainpay_webhook_failed_attempts_total')! >= failed0 + 1 ? text : undefined;
      },
      10_000,
      'a failed delivery attempt counted',
    );
    // Both events wait for a retry: nothing was delivered.
    expect(sample(after, 'chainpay_webhook_queue_depth')).toBeGreaterThanOrEqual(depth0 + 2);
    expect(sample(after, 'chainpay_webhook_events{status="delivered"}')).toBe(sample(before, 'chainpay_webhook_events{status="delivered"}'));
  });

  it('a running watcher turns NOT_SERVING once its RPC was unhealthy, or it lagged, longer than allowed (then serves again)', async () => {
    // The monitor on the stack's real database; the watchers are status views we steer, the
    // clock is ours so "60 s" passes at once.
    const view = (network: NetworkCode, v: Partial<WatcherStatusView>): WatcherStatusView => ({
      network,
      mode: 'live',
      state: 'running',
      head: 10,
      cursor: 10,
      lagBlocks: 0,
      lagSeconds: 0,
      lastBlockAt: null,
      lastError: null,
      lastErrorAt: null,
      rpcHealthy: true,
      watched: 0,
      tracked: 0,
      addressPool: { state: 'ok', error: null, haltedAt: null },
      ...v,
    });
    const states = new Map<NetworkCode, WatcherStatusView>([
      ['POLYGON', view('POLYGON', {})],
      ['BEP20', view('BEP20', {})],
    ]);
    const watchers = new Map([...states.keys()].map((n) => [n, { status: () => states.get(n)! } as unknown as NetworkWatcher]));
    const reported = new Map<string, string>();
    let now = 1_000_000;
    const monitor = new HealthMonitor({
      orm: stack.daemon.orm,
      logger: pino({ level: 'silent' }),
      watchers,
      intervalMs: 3_600_000,
      now: () => now,
      health: { setStatus: (service: string, s: string) => void reported.set(service, s) } as never,
      watcherUnhealthyAfterMs: 60_000,
      watcherMaxLagSeconds: 120,
    });
    const at = async (ms: number): Promise<Record<string, string | undefined>> => {
      now = 1_000_000 + ms;
      await monitor.check();
      return { all: reported.get(''), polygon: reported.get('chainpay.watcher.POLYGON'), bep20: reported.get('chainpay.watcher.BEP20') };
    };
    await monitor.start();
    try {
      expect(await at(0)).toEqual({ all: 'SERVING', polygon: 'SERVING', bep20: 'SERVING' });
      states.set('POLYGON', view('POLYGON', { rpcHealthy: false, lastError: 'fetch failed' }));
      expect((await at(1_000)).polygon).toBe('SERVING'); // one failed poll is retried: no flapping
      expect((await at(60_999)).polygon).toBe('SERVING');
      expect(await at(61_000)).toEqual({ all: 'SERVING', polygon: 'NOT_SERVING', bep20: 'SERVING' }); // unhealthy for 60 s
      states.set('POLYGON', view('POLYGON', {}));
      expect((await at(62_000)).polygon).toBe('SERVING'); // the RPC answers again: serving at once
      states.set('POLYGON', view('POLYGON', { rpcHealthy: false }));
      expect((await at(63_000)).polygon).toBe('SERVING'); // a new episode starts its own 60 s

      // Lag: behind by more than 120 s for 60 s, although every RPC call answers.
      states.set('POLYGON', view('POLYGON', {}));
      states.set('BEP20', view('BEP20', { lagBlocks: 40, lagSeconds: 121 }));
      expect((await at(100_000)).bep20).toBe('SERVING');
      states.set('BEP20', view('BEP20', { lagBlocks: 30, lagSeconds: 119 }));
      expect((await at(130_000)).bep20).toBe('SERVING');
      states.set('BEP20', view('BEP20', { lagBlocks: 40, lagSeconds: 150 }));
      expect((await at(140_000)).bep20).toBe('SERVING');
      expect(await at(200_000)).toEqual({ all: 'SERVING', polygon: 'SERVING', bep20: 'NOT_SERVING' });

      // Not running is NOT_SERVING whatever the RPC says; trouble does not carry over a pause.
      states.set('BEP20', view('BEP20', { state: 'paused', rpcHealthy: true }));
      expect((await at(201_000)).bep20).toBe('NOT_SERVING');
      states.set('BEP20', view('BEP20', { lagSeconds: 150, lagBlocks: 40 }));
      expect((await at(202_000)).bep20).toBe('SERVING');
    } finally {
      await monitor.stop();
    }
  });

  it('gRPC health reflects the database and each watcher; /readyz follows', async () => {
    expect(await health(stack, '')).toBe('SERVING');
    expect(await health(stack, 'chainpay.watcher.SOLANA')).toBe('SERVING');
    expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(200);

    // Take the database away: refuse new connections and end the daemon's pooled sessions (not
    // the engine lock's: losing that one stops the daemon on purpose, see src/store/engine-lock.ts).
    const name = new URL(stack.databaseUrl).pathname.slice(1);
    const quiet = jest.spyOn(console, 'log').mockImplementation(() => undefined); // knex reports each killed connection
    const admin = new Client({ connectionString: process.env.TEST_ADMIN_DATABASE_URL ?? process.env.DATABASE_URL });
    await admin.connect();
    try {
      await admin.query(`alter database ${name} allow_connections false`);
      await admin.query(`select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and application_name <> 'chainpay-engine-lock'`, [name]);
      await eventually(async () => ((await health(stack, '')) === 'NOT_SERVING' ? true : undefined), 8_000, 'NOT_SERVING');
      expect(await health(stack, 'chainpay.watcher.SOLANA')).toBe('NOT_SERVING');
      expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(503);
      expect((await fetch(`${stack.baseUrl}/healthz`)).status).toBe(200);
      const down = await scrape(); // still answers: live series, database_up 0
      expect(down.status).toBe(200);
      expect(sample(down.text, 'chainpay_database_up')).toBe(0);
    } finally {
      await admin.query(`alter database ${name} allow_connections true`);
      await admin.end();
    }
    await eventually(async () => ((await health(stack, '')) === 'SERVING' ? true : undefined), 8_000, 'SERVING again');
    await eventually(async () => ((await health(stack, 'chainpay.watcher.SOLANA')) === 'SERVING' ? true : undefined), 8_000, 'watcher SERVING again');
    expect((await fetch(`${stack.baseUrl}/readyz`)).status).toBe(200);
    quiet.mockRestore();
  });
});
