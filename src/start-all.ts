import { loadConfig, ConfigError, type Config } from './config/config';
import { createLogger, type Logger } from './observability/logger';
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
  logger.info(
    { http: `http://127.0.0.1:${port}`, grpc: `127.0.0.1:${daemon.grpcPort}`, dataDir: config.dataDir, chainMode: config.CHAIN_MODE },
    'chainpay is up: try `curl http://127.0.0.1:%d/v1/networks`, then `npm run chainpay -- merchant create --name "My shop" --json`',
    port,
  );
  return {
    stop: async () => {
      await gateway.close();
      await daemon.stop();
    },
  };
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
