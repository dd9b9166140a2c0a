import fs from 'node:fs';
import path from 'node:path';
import { startChild, type Child } from './ipc';
import type { Started } from '../children/server';

const CHILDREN = path.join(__dirname, '..', 'children');
const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

/** What every scenario gets from the runner. */
export interface BenchContext {
  /** Scratch directory of this bench run (DATA_DIRs, logs); removed at the end. */
  readonly root: string;
  /** Runs per figure (the median is reported). */
  readonly runs: number;
  /** Shorter windows (a smoke run of the bench itself). */
  readonly quick: boolean;
  /** Process layout of the daemon and the gateway (see ServerOptions). */
  readonly layout: 'one' | 'split';
  /** When set, CPU profiles of the measured windows are written here. */
  readonly profileDir: string | null;
  log(message: string): void;
  /** Seconds scaled down in quick mode. */
  ms(normal: number): number;
}

export interface Server {
  readonly child: Child;
  /** The gateway's own process in the split layout; null when the gateway runs in `child`. */
  readonly gateway: Child | null;
  readonly started: Started;
  readonly dataDir: string;
  readonly logFile: string;
  merchant(name?: string): Promise<{ merchantId: string; apiKey: string; apiSecret: string }>;
  /** CPU milliseconds the server's processes (daemon, and gateway when apart) used so far. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

export interface ServerOptions {
  readonly nodeFlags?: string[];
  readonly dataDir?: string;
  /**
   * 'one': daemon and gateway in one process, as `npm start` runs them. 'split': the gateway in a
   * process of its own, as docker-compose.yml (production) runs them. Default 'one'.
   */
  readonly layout?: 'one' | 'split';
}

/**
 * The system under test (embedded PostgreSQL under `dataDir`) in one or two processes. `env` adds
 * to the bench's defaults; nothing else of the host environment leaks in.
 */
/**
 * The Node flags a process runs with in production: those of its npm script (package.json,
 * `exec node <flags> <entry>`: `start:gateway` for the gateway, `start:daemon` for the daemon alone,
 * `start` for both in one process), so the bench cannot drift from them. `override` (the
 * BENCH_GATEWAY_FLAGS or BENCH_DAEMON_FLAGS variable) replaces them for experiments ("" for none).
 */
export function scriptNodeFlags(script: 'start' | 'start:daemon' | 'start:gateway', override?: string): string[] {
  if (override !== undefined) return override.split(' ').filter(Boolean);
  const pkg = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const words = (pkg.scripts[script] ?? '').split(/\s+/);
  // The flags only: the bench runs the sources, under tsx.
  return words.slice(words.indexOf('node') + 1).filter((w) => w.startsWith('--'));
}

export function gatewayNodeFlags(): string[] {
  return scriptNodeFlags('start:gateway', process.env.BENCH_GATEWAY_FLAGS);
}

export async function startServer(ctx: BenchContext, name: string, env: Record<string, string> = {}, options: ServerOptions = {}): Promise<Server> {
  const dataDir = options.dataDir ?? path.join(ctx.root, name);
  fs.mkdirSync(dataDir, { recursive: true });
  const logFile = path.join(ctx.root, `${name}.log`);
  const split = options.layout === 'split';
  // The daemon's production flags (start:daemon; start when the gateway shares its process), then
  // the scenario's own (they win where both set one). BENCH_DAEMON_FLAGS='--trace-gc' replaces the
  // production flags for experiments.
  const production = scriptNodeFlags(split ? 'start:daemon' : 'start', process.env.BENCH_DAEMON_FLAGS);
  const child = startChild(path.join(CHILDREN, 'server.ts'), { logFile, nodeFlags: [...production, ...(options.nodeFlags ?? [])] });
  let gateway: Child | null = null;
  try {
    // BENCH_SERVER_ENV='{"LOG_LEVEL":"warn"}': extra daemon settings for experiments (reported as given).
    const extra = process.env.BENCH_SERVER_ENV ? (JSON.parse(process.env.BENCH_SERVER_ENV) as Record<string, string>) : {};
    let started = await child.call<Started>('start', { dataDir, env: { ...env, ...extra }, gateway: !split });
    if (split) {
      gateway = startChild(path.join(CHILDREN, 'gateway.ts'), { logFile: path.join(ctx.root, `${name}-gateway.log`), nodeFlags: gatewayNodeFlags() });
      const { httpPort } = await gateway.call<{ httpPort: number }>('start', { grpcAddress: `127.0.0.1:${started.grpcPort}`, logLevel: extra.LOG_LEVEL });
      started = { ...started, httpPort };
    }
    const g = gateway;
    return {
      child,
      gateway: g,
      started,
      dataDir,
      logFile,
      merchant: (merchantName = 'Bench shop') => child.call('merchant', { name: merchantName }),
      cpu: async () => (await child.call<number>('cpu')) + (g ? await g.call<number>('cpu') : 0),
      stop: async () => {
        if (g) {
          await g.call('stop').catch(() => undefined);
          await g.stop();
        }
        await child.call('stop').catch(() => undefined);
        await child.stop();
      },
    };
  } catch (err) {
    await gateway?.stop();
    await child.stop();
    throw new Error(`${name}: the server did not start (log: ${logFile}): ${(err as Error).message}`);
  }
}

export function startLoadgen(): Child {
  return startChild(path.join(CHILDREN, 'loadgen.ts'));
}

export function startBareServer(): Child {
  return startChild(path.join(CHILDREN, 'bare-server.ts'));
}

/** Profile the server over `fn` when the bench runs with --profile. */
export async function profiled<T>(ctx: BenchContext, server: Server, name: string, fn: () => Promise<T>): Promise<T> {
  if (!ctx.profileDir) return fn();
  const processes = server.gateway ? [server.child, server.gateway] : [server.child];
  for (const p of processes) await p.call('profileStart');
  try {
    return await fn();
  } finally {
    // BENCH_PROFILE=heap: sampled allocation profiles (test/bench/support/profiler.ts).
    const ext = process.env.BENCH_PROFILE?.startsWith('heap') ? 'heapprofile' : 'cpuprofile';
    await server.child.call('profileStop', { file: path.join(ctx.profileDir, `${name}.${ext}`) });
    if (server.gateway) await server.gateway.call('profileStop', { file: path.join(ctx.profileDir, `${name}-gateway.${ext}`) });
  }
}
