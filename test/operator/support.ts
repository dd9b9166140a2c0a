import * as grpc from '@grpc/grpc-js';
import { run } from '../../src/cli/main';
import type { ActorEvent, WatcherStatus } from '../../src/grpc/generated/chainpay/v1/operator';
import { eventually, rpc, type Stack } from '../support/stack';

export interface CliResult {
  readonly code: number;
  readonly out: string;
  readonly err: string;
}

/**
 * `chainpay ...` in-process against the stack's daemon (token read from DATA_DIR, as operators do),
 * acting as CHAINPAY_OPERATOR_NAME=tester unless `env` names someone else.
 */
export async function cli(stack: Stack, args: string[], options: { env?: Record<string, string>; signal?: AbortSignal; onOut?: (text: string) => void } = {}): Promise<CliResult> {
  let out = '';
  let err = '';
  const code = await run(args, {
    env: { CHAINPAY_GRPC_ADDR: stack.grpcAddress, DATA_DIR: stack.dataDir, CHAINPAY_OPERATOR_NAME: 'tester', ...options.env },
    stdout: { write: (s: string) => void ((out += s), options.onOut?.(out)) },
    stderr: { write: (s: string) => void (err += s) },
    ...(options.signal ? { signal: options.signal } : {}),
  });
  return { code, out, err };
}

export async function cliJson<T = any>(stack: Stack, args: string[], env?: Record<string, string>): Promise<T> {
  // eslint-disable-line @typescript-eslint/no-explicit-any
  const r = await cli(stack, [...args, '--json'], env ? { env } : {});
  if (r.code !== 0) throw new Error(`chainpay ${args.join(' ')} exited ${r.code}: ${r.err || r.out}`);
  return JSON.parse(r.out) as T;
}

/** A WatchActors stream collecting events until `close()`. */
export function watchActors(
  stack: Stack,
  filter: { kind?: string; id?: string; network?: string },
  md: grpc.Metadata = stack.operator,
): { events: ActorEvent[]; errors: grpc.ServiceError[]; close(): void } {
  const events: ActorEvent[] = [];
  const errors: grpc.ServiceError[] = [];
  const call = stack.clients.operator.watchActors(filter, md);
  call.on('data', (e: ActorEvent) => events.push(e));
  call.on('error', (e: grpc.ServiceError) => errors.push(e));
  return { events, errors, close: () => call.cancel() };
}

export async function watcher(stack: Stack, network: string): Promise<WatcherStatus> {
  const res = await rpc<{ watchers: WatcherStatus[] }>((cb) => stack.clients.operator.listWatchers({}, stack.operator, cb));
  const w = res.watchers.find((x) => x.network === network);
  if (!w) throw new Error(`no watcher for ${network}`);
  return w;
}

/** Waits until the watcher's cursor reached the chain head. */
export async function caughtUp(stack: Stack, network: string, timeoutMs = 10_000): Promise<WatcherStatus> {
  return eventually(
    async () => {
      const w = await watcher(stack, network);
      return w.state === 'running' && w.lag_blocks === '0' && w.cursor === w.head ? w : undefined;
    },
    timeoutMs,
    `${network} watcher to catch up`,
  );
}

export async function query<T>(stack: Stack, sql: string, params: unknown[] = []): Promise<T[]> {
  return stack.daemon.orm.em.fork().getConnection().execute<T[]>(sql, params);
}

/** The gRPC health of one service name, e.g. '' or 'chainpay.watcher.TON'. */
export async function health(stack: Stack, service: string): Promise<string> {
  const client = new grpc.Client(stack.grpcAddress, grpc.credentials.createInsecure());
  try {
    return await new Promise<string>((resolve, reject) => {
      client.makeUnaryRequest(
        '/grpc.health.v1.Health/Check',
        (req: { service: string }) => {
          const b = Buffer.from(req.service, 'utf8');
          return b.length ? Buffer.concat([Buffer.from([0x0a, b.length]), b]) : Buffer.alloc(0);
        },
        (buf: Buffer) => buf,
        { service },
        (err, res) => {
          if (err) return reject(err);
          const status = res && res.length >= 2 ? res[1]! : 0;
          resolve(['UNKNOWN', 'SERVING', 'NOT_SERVING', 'SERVICE_UNKNOWN'][status] ?? 'UNKNOWN');
        },
      );
    });
  } finally {
    client.close();
  }
}
