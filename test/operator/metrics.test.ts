import { spawnSync } from 'node:child_process';
import { Client } from 'pg';
import { createMerchant, eventually, type MerchantCredentials, type Stack, startStack } from '../support/stack';
import { createInvoice, payAndConfirm } from '../invoices/helpers';
import { health } from './support';

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
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and application_name <> 'chainpay-engine-lock'`,
        [name],
      );
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
