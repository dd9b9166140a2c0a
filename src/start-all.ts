import { loadConfig, ConfigError, type Config } from './config/config';
import { createLogger, type Logger } from './observability/logger';
import { BANNER_KEY } from './lib/log-format';
import { startDaemon } from './daemon';
import { startGateway } from '../gateway/main';
import { stopOnSignals, STOP_MARGIN_MS } from '../gateway/stop-on-signals';

/**
 * `npm start`: the daemon and the gateway in one process on the embedded defaults (embedded
 * PostgreSQL under DATA_DIR, devnet chains). In production run them apart (docker-compose.yml).
 */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(78);
    }
    throw e;
  }
  const logger = createLogger(config.LOG_LEVEL, 'chainpay');
  const running = await start(config, logger);
  // Until here a signal ends the process at once (Node's default): startup cannot be interrupted
  // halfway; an embedded PostgreSQL left running that way is stopped by the next start. The gateway
  // finishes its in-flight requests first (up to SHUTDOWN_GRACE_MS), then the daemon its gRPC calls
  // (up to SHUTDOWN_GRACE_MS again), its actors and the embedded PostgreSQL.
  stopOnSignals({ logger, deadlineMs: 2 * config.SHUTDOWN_GRACE_MS + STOP_MARGIN_MS, stop: () => running.stop() });
}

/** Starts the daemon, then the gateway in front of it; what is running stops with stop(). */
async function start(config: Config, logger: Logger): Promise<{ stop(): Promise<void> }> {
  const daemon = await startDaemon(config, {
    // The daemon's lines carry service "chainpay", the gateway's "chainpay-gateway"; no component
    // here, the daemon's own parts (e.g. webhooks) set it.
    logger,
    // Metrics on by default here (one machine: on GRPC_HOST, loopback unless set); METRICS_PORT overrides.
    defaultMetricsPort: DEFAULT_METRICS_PORT,
    // Another daemon may already be active: exit at once rather than keep the gateway in front of a
    // stopped daemon; the supervisor restarts us (as src/main.ts does).
    onEngineLockLost: () => process.exit(75),
  });
  let started: Awaited<ReturnType<typeof startGateway>>;
  try {
    started = await startGateway({ ...process.env, CHAINPAY_GRPC_ADDR: `127.0.0.1:${daemon.grpcPort}`, PUBLIC_URL: config.publicUrl });
  } catch (err) {
    // E.g. HTTP_PORT taken: stop the daemon (and its embedded PostgreSQL) before failing.
    await daemon.stop();
    throw err;
  }
  const { gateway, port } = started;
  const http = localUrl(started.config.httpHost, port);
  const aheadSeconds = Math.floor(daemon.clock.offset() / 1000);
  logger.info(
    {
      [BANNER_KEY]: true,
      http,
      // Where the gateway listens, as bound: 127.0.0.1 by default, 0.0.0.0 (all interfaces) in a container.
      listening: `${started.config.httpHost}:${port}`,
      grpc: `${hostForUrl(config.GRPC_HOST)}:${daemon.grpcPort}`,
      metrics: daemon.metricsPort === null ? null : `${localUrl(config.GRPC_HOST, daemon.metricsPort)}/metrics`,
      dataDir: config.dataDir,
      chainMode: config.CHAIN_MODE,
      ...(aheadSeconds > 0 ? { devnetClockAheadSeconds: aheadSeconds } : {}),
    },
    'chainpay is up at %s: try `curl %s/v1/networks`, then `npm run chainpay -- merchant create --name "My shop" --json`',
    http,
    http,
  );
  return {
    stop: async () => {
      await gateway.close();
      await daemon.stop();
    },
  };
}

/** `npm start`'s metrics port when METRICS_PORT is unset (Prometheus' usual exporter port). */
const DEFAULT_METRICS_PORT = 9464;

/** An URL this machine reaches a server at: a wildcard address (all interfaces) is reached on loopback. */
function localUrl(host: string, port: number): string {
  const reach = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${hostForUrl(reach)}:${port}`;
}

/** An IPv6 literal goes in brackets in an URL or host:port. */
function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

main().catch((err: unknown) => {
  // Configuration found wrong only once the database is reached (e.g. keys that are not the database's).
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  process.stderr.write(`chainpay failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
