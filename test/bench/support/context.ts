import fs from 'node:fs';
import path from 'node:path';
import { startChild, type Child } from './ipc';
import type { Started } from '../children/server';

const CHILDREN = path.join(__dirname, '..', 'children');

/** What every scenario gets from the runner. */
export interface BenchContext {
  /** Scratch directory of this bench run (DATA_DIRs, logs); removed at the end. */
  readonly root: string;
  /** Runs per figure (the median is reported). */
  readonly runs: number;
  /** Shorter windows (a smoke run of the bench itself). */
  readonly quick: boolean;
  /** When set, CPU profiles of the measured windows are written here. */
  readonly profileDir: string | null;
  log(message: string): void;
  /** Seconds scaled down in quick mode. */
  ms(normal: number): number;
}

export interface Server {
  readonly child: Child;
  readonly started: Started;
  readonly dataDir: string;
  readonly logFile: string;
  merchant(name?: string): Promise<{ merchantId: string; apiKey: string; apiSecret: string }>;
  /** CPU milliseconds the server process used so far. */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The system under test in its own process (daemon + gateway, embedded PostgreSQL under
 * `dataDir`). `env` adds to the bench's defaults; nothing else of the host environment leaks in.
 */
export async function startServer(ctx: BenchContext, name: string, env: Record<string, string> = {}, options: { nodeFlags?: string[]; dataDir?: string; gateway?: boolean } = {}): Promise<Server> {
  const dataDir = options.dataDir ?? path.join(ctx.root, name);
  fs.mkdirSync(dataDir, { recursive: true });
  const logFile = path.join(ctx.root, `${name}.log`);
  const child = startChild(path.join(CHILDREN, 'server.ts'), { logFile, nodeFlags: options.nodeFlags });
  try {
    // BENCH_SERVER_ENV='{"LOG_LEVEL":"warn"}': extra daemon settings for experiments (reported as given).
    const extra = process.env.BENCH_SERVER_ENV ? (JSON.parse(process.env.BENCH_SERVER_ENV) as Record<string, string>) : {};
    const started = await child.call<Started>('start', { dataDir, env: { ...env, ...extra }, gateway: options.gateway });
    return {
      child,
      started,
      dataDir,
      logFile,
      merchant: (merchantName = 'Bench shop') => child.call('merchant', { name: merchantName }),
      cpu: () => child.call<number>('cpu'),
      stop: async () => {
        await child.call('stop').catch(() => undefined);
        await child.stop();
      },
    };
  } catch (err) {
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
  await server.child.call('profileStart');
  try {
    return await fn();
  } finally {
    await server.child.call('profileStop', { file: path.join(ctx.profileDir, `${name}.cpuprofile`) });
  }
}
