import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Client, Pool } from 'pg';
import { summarize, type LatencySummary } from './stats';
import { processCpuMs } from './cpu';

/** The server process behind each connection (PostgreSQL forks one per connection). */
async function backendPids(clients: readonly { query(text: string): Promise<{ rows: { pid: number }[] }> }[]): Promise<number[]> {
  return Promise.all(clients.map(async (c) => (await c.query('select pg_backend_pid() as pid')).rows[0]!.pid));
}

/** CPU milliseconds the given PostgreSQL backends used so far. */
function backendsCpuMs(pids: readonly number[]): number {
  return pids.reduce((sum, pid) => sum + processCpuMs(pid), 0);
}

/** One parameter of the baseline statement: fixed, a fresh UUID, a unique text, or taken in turn from a list. */
export type SqlParam = { readonly value: unknown } | { readonly uuid: true } | { readonly seq: string } | { readonly cycle: readonly string[] };

/**
 * A baseline: `concurrency` connections, each running `sql` (autocommit, one statement) back to
 * back for the window. Only 127.0.0.1 databases are used.
 */
export interface SqlLoop {
  readonly url: string;
  readonly concurrency: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly sql: string;
  readonly params: readonly SqlParam[];
}

export interface SqlResult {
  readonly completed: number;
  readonly errors: number;
  /** Statements in the window whose rowCount was 0 (e.g. a refused debit). */
  readonly noRows: number;
  readonly throughput: number;
  readonly latency: LatencySummary;
  readonly firstError: string | null;
  /** Statements sent from the first to the last (warm-up included), and this process's CPU milliseconds over them. */
  readonly statements: number;
  readonly clientCpuMs: number;
  /**
   * CPU milliseconds of the PostgreSQL backends serving these connections over the same statements:
   * the database's work for them alone, without its background processes (checkpoints, autovacuum
   * after an earlier phase) that a measure of the whole server tree would count.
   */
  readonly backendCpuMs: number;
}

export async function sqlLoop(o: SqlLoop): Promise<SqlResult> {
  if (!/@127\.0\.0\.1[:/]/.test(o.url)) throw new Error('the bench only talks to 127.0.0.1');
  const clients = await Promise.all(
    Array.from({ length: o.concurrency }, async () => {
      const c = new Client({ connectionString: o.url });
      await c.connect();
      return c;
    }),
  );
  let seq = 0;
  const values = (): unknown[] =>
    o.params.map((p) => {
      if ('value' in p) return p.value;
      if ('uuid' in p) return randomUUID();
      if ('seq' in p) return `${p.seq}-${seq}`;
      return p.cycle[seq % p.cycle.length];
    });
  const latencies: number[] = [];
  let completed = 0;
  let errors = 0;
  let noRows = 0;
  let firstError: string | null = null;
  const backends = await backendPids(clients);
  const backend0 = backendsCpuMs(backends);
  const cpu0 = process.cpuUsage();
  const start = performance.now();
  const windowStart = start + o.warmupMs;
  const end = windowStart + o.durationMs;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < end) {
        const params = values();
        seq++;
        const t0 = performance.now();
        let rows = 0;
        let failed: string | null = null;
        try {
          rows = (await client.query(o.sql, params)).rowCount ?? 0;
        } catch (err) {
          failed = (err as Error).message;
        }
        const t1 = performance.now();
        if (t0 < windowStart || t1 > end) continue;
        completed++;
        if (failed !== null) {
          errors++;
          firstError ??= failed;
          continue;
        }
        if (rows === 0) noRows++;
        latencies.push(t1 - t0);
      }
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  const backendCpuMs = backendsCpuMs(backends) - backend0;
  await Promise.all(clients.map((c) => c.end()));
  return {
    completed,
    errors,
    noRows,
    throughput: (completed - errors) / (o.durationMs / 1000),
    latency: summarize(latencies),
    firstError,
    statements: seq,
    clientCpuMs: (cpu.user + cpu.system) / 1000,
    backendCpuMs,
  };
}

/** `statements` run at once over a pool of `connections` (autocommit, one statement each). */
export interface SqlBurst {
  readonly url: string;
  readonly connections: number;
  readonly sql: string;
  /** One parameter list per statement. */
  readonly params: readonly (readonly unknown[])[];
  /** Run before the burst on one connection (e.g. resetting the rows the burst updates). */
  readonly setup?: readonly string[];
}

export interface SqlBurstResult {
  readonly elapsedMs: number;
  readonly throughput: number;
  /** Statements that changed a row (e.g. debits granted). */
  readonly changed: number;
  readonly errors: number;
  readonly firstError: string | null;
  /** CPU this load process spent in the burst (user + system), ms. */
  readonly clientCpuMs: number;
  /** CPU of the PostgreSQL backends of the pool's connections over the burst, ms (as SqlResult's). */
  readonly backendCpuMs: number;
}

export async function sqlBurst(o: SqlBurst): Promise<SqlBurstResult> {
  if (!/@127\.0\.0\.1[:/]/.test(o.url)) throw new Error('the bench only talks to 127.0.0.1');
  const pool = new Pool({ connectionString: o.url, max: o.connections });
  try {
    // Open every connection before the clock starts, as the daemon's pool is warm.
    const warm = await Promise.all(Array.from({ length: o.connections }, () => pool.connect()));
    for (const text of o.setup ?? []) await warm[0]!.query(text);
    const backends = await backendPids(warm);
    for (const c of warm) c.release();
    let changed = 0;
    let errors = 0;
    let firstError: string | null = null;
    const backend0 = backendsCpuMs(backends);
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    await Promise.all(
      o.params.map(async (values) => {
        try {
          const result = await pool.query(o.sql, values as unknown[]);
          changed += result.rowCount ?? 0;
        } catch (err) {
          errors++;
          firstError ??= (err as Error).message;
        }
      }),
    );
    const elapsedMs = performance.now() - start;
    const cpu = process.cpuUsage(cpu0);
    const backendCpuMs = backendsCpuMs(backends) - backend0;
    return { elapsedMs, throughput: o.params.length / (elapsedMs / 1000), changed, errors, firstError, clientCpuMs: (cpu.user + cpu.system) / 1000, backendCpuMs };
  } finally {
    await pool.end();
  }
}
