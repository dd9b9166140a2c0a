import { z } from 'zod';
import type { Logger } from 'pino';
import type { RateLimitOptions } from './rate-limit';
import { clientKeyFor, parseTrustedProxies, type ClientKey } from './client-key';
import { createGatewayLogger } from './logger';
import { createGateway, type Gateway } from './server';
import { stopOnSignals, STOP_MARGIN_MS } from './stop-on-signals';

/** Gateway process settings, from the environment. */
export interface GatewayEnv {
  readonly httpPort: number;
  readonly httpHost: string;
  readonly grpcAddress: string;
  readonly publicUrl?: string;
  readonly logLevel: string;
  readonly rateLimit?: RateLimitOptions;
  readonly shutdownGraceMs: number;
  /** From TRUSTED_PROXY: the client address behind our own proxies; absent: the peer address. */
  readonly clientKey?: ClientKey;
}

const port = z.coerce.number().int().min(0).max(65535);
const schema = z.object({
  HTTP_PORT: port.default(8080),
  // Loopback by default: the embedded defaults are for one machine; containers set HTTP_HOST=0.0.0.0.
  HTTP_HOST: z.string().min(1).default('127.0.0.1'),
  CHAINPAY_GRPC_ADDR: z.string().min(1).optional(),
  GRPC_PORT: port.default(50051),
  PUBLIC_URL: z.string().url().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Unset: pretty at a terminal in development, JSON otherwise (src/lib/log-format.ts). */
  LOG_FORMAT: z.enum(['json', 'pretty']).optional(),
  /** Per-client requests per second on /v1; unset or 0 turns the limiter off. */
  RATE_LIMIT_PER_SECOND: z.coerce.number().min(0).default(0),
  RATE_LIMIT_BURST: z.coerce.number().int().min(1).optional(),
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(10_000),
  /** Addresses / CIDR ranges of our load balancers, whose X-Forwarded-For is believed. */
  TRUSTED_PROXY: z.string().optional(),
});

/** Throws an Error naming the variable at fault. Empty variables count as unset. */
export function loadGatewayEnv(env: NodeJS.ProcessEnv = process.env): GatewayEnv {
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`invalid configuration: ${String(issue.path[0] ?? 'environment')}: ${issue.message}`);
  }
  const e = parsed.data;
  const rps = e.RATE_LIMIT_PER_SECOND;
  let clientKey: ClientKey | undefined;
  if (e.TRUSTED_PROXY !== undefined) {
    try {
      clientKey = clientKeyFor(parseTrustedProxies(e.TRUSTED_PROXY));
    } catch (err) {
      throw new Error(`invalid configuration: ${(err as Error).message}`);
    }
  }
  return {
    httpPort: e.HTTP_PORT,
    httpHost: e.HTTP_HOST,
    grpcAddress: e.CHAINPAY_GRPC_ADDR ?? `127.0.0.1:${e.GRPC_PORT}`,
    publicUrl: e.PUBLIC_URL,
    logLevel: e.LOG_LEVEL,
    rateLimit: rps > 0 ? { ratePerSecond: rps, burst: e.RATE_LIMIT_BURST ?? Math.max(1, Math.ceil(rps * 2)) } : undefined,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    clientKey,
  };
}

/** Starts a gateway from the environment (no signal handling; for embedding, e.g. `npm start`). */
export async function startGateway(env: NodeJS.ProcessEnv = process.env): Promise<{ gateway: Gateway; port: number; config: GatewayEnv; logger: Logger }> {
  const config = loadGatewayEnv(env);
  const logger = createGatewayLogger(config.logLevel);
  const gateway = createGateway({
    grpcAddress: config.grpcAddress,
    publicUrl: config.publicUrl,
    logger,
    rateLimit: config.rateLimit,
    shutdownGraceMs: config.shutdownGraceMs,
    clientKey: config.clientKey,
  });
  const port = await gateway.listen(config.httpPort, config.httpHost);
  return { gateway, port, config, logger };
}

async function main(): Promise<void> {
  const { gateway, config, logger } = await startGateway();
  // In-flight requests get SHUTDOWN_GRACE_MS to finish; then their connections are cut.
  stopOnSignals({ logger, deadlineMs: config.shutdownGraceMs + STOP_MARGIN_MS, stop: () => gateway.close() });
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`chainpay-gateway: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
