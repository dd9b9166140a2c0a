/**
 * The system under test in one process, as `npm start` runs it: the daemon (embedded PostgreSQL
 * under DATA_DIR, devnet chains unless RPC URLs are given) and the gateway in front of it. Logs go
 * to this process's stdout (the bench points it at a file), at the level asked (default info).
 */
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';
import * as grpc from '@grpc/grpc-js';
import { loadConfig } from '../../../src/config/config';
import { startDaemon, type Daemon } from '../../../src/daemon';
import { createLogger } from '../../../src/observability/logger';
import { createGateway, type Gateway } from '../../../gateway/server';
import { MerchantServiceClient, type CreateMerchantResponse } from '../../../src/grpc/generated/chainpay/v1/merchants';
import { serveIpc } from '../support/ipc';
import { cpuMs, Profiler } from '../support/profiler';
import { LoopDelayProbe } from '../support/loop-delay';

const loopDelay = new LoopDelayProbe();

export interface StartArgs {
  readonly dataDir: string;
  readonly env?: Record<string, string>;
  /** Default true; false starts only the daemon. */
  readonly gateway?: boolean;
}

export interface Started {
  readonly httpPort: number;
  readonly grpcPort: number;
  readonly databaseUrl: string;
  readonly operatorToken: string;
  /** Wall time of startDaemon (embedded PostgreSQL start, migrations, rehydration, catch-up). */
  readonly startMs: number;
}

export interface HeapReport {
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly rss: number;
  readonly heapLimit: number;
}

let daemon: Daemon | null = null;
let gateway: Gateway | null = null;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

serveIpc(
  {
    start: async (a: StartArgs): Promise<Started> => {
      const config = loadConfig({ DATA_DIR: a.dataDir, GRPC_PORT: '0', HTTP_PORT: '0', DEVNET_BLOCK_MS: '0', LOG_LEVEL: 'info', ...a.env });
      const logger = createLogger(config.LOG_LEVEL, 'chainpay');
      const t0 = performance.now();
      daemon = await startDaemon(config, { logger: logger.child({ component: 'daemon' }) });
      const startMs = performance.now() - t0;
      let httpPort = 0;
      if (a.gateway !== false) {
        gateway = createGateway({ grpcAddress: `127.0.0.1:${daemon.grpcPort}`, logger: createLogger(config.LOG_LEVEL, 'chainpay-gateway') });
        httpPort = await gateway.listen(0, '127.0.0.1');
      }
      const databaseUrl = String(daemon.orm.config.get('clientUrl'));
      return { httpPort, grpcPort: daemon.grpcPort, databaseUrl, operatorToken: daemon.operatorToken, startMs };
    },
    merchant: async (a: { name: string }) => {
      const d = need();
      const client = new MerchantServiceClient(`127.0.0.1:${d.grpcPort}`, grpc.credentials.createInsecure());
      const md = new grpc.Metadata();
      md.set('authorization', `Bearer ${d.operatorToken}`);
      const res = await new Promise<CreateMerchantResponse>((resolve, reject) => client.createMerchant({ name: a.name }, md, (err, r) => (err ? reject(err) : resolve(r))));
      client.close();
      return { merchantId: res.merchant!.merchant_id, apiKey: res.merchant!.api_key, apiSecret: res.api_secret };
    },
    sql: async (a: { text: string; params?: unknown[] }) =>
      need()
        .orm.em.fork()
        .execute(a.text, a.params ?? []),
    heap: async (): Promise<HeapReport> => {
      for (let i = 0; i < 3; i++) gc();
      const m = process.memoryUsage();
      return { heapUsed: m.heapUsed, heapTotal: m.heapTotal, rss: m.rss, heapLimit: v8.getHeapStatistics().heap_size_limit };
    },
    /** CPU milliseconds this process has used (user + system). */
    cpu: async () => cpuMs(),
    /** `npm run bench -- --profile`: a CPU profile of the measured window only. */
    profileStart: async () => profiler.start(),
    loopDelayStart: async () => loopDelay.start(),
    loopDelayStop: async () => loopDelay.stop(),
    profileStop: async (a: { file: string }) => profiler.stop(a.file),
    stop: async () => stop(),
  },
  stop,
);

/** Also on SIGTERM or when the bench goes away: the embedded PostgreSQL must not outlive us. */
async function stop(): Promise<void> {
  const g = gateway;
  const d = daemon;
  gateway = null;
  daemon = null;
  await g?.close();
  await d?.stop();
}

const profiler = new Profiler();

function need(): Daemon {
  if (!daemon) throw new Error('not started');
  return daemon;
}
