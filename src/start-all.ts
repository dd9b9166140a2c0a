import { loadConfig, ConfigError } from './config/config';
import { createLogger } from './observability/logger';
import { startDaemon } from './daemon';
import { startGateway } from '../gateway/main';

/**
 * `npm start`: the daemon and the gateway in one process on the embedded defaults (embedded
 * PostgreSQL under DATA_DIR, devnet chains). In production run them apart (docker-compose.yml).
 */
async function main(): Promise<void> {
  let config;
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
  const daemon = await startDaemon(config, {
    // The daemon's lines carry service "chainpay", the gateway's "chainpay-gateway"; no component
    // here, the daemon's own parts (e.g. webhooks) set it.
    logger,
    // Another daemon may already be active: exit at once rather than keep the gateway in front of a
    // stopped daemon; the supervisor restarts us (as src/main.ts does).
    onEngineLockLost: () => process.exit(75),
  });
  const { gateway, port } = await startGateway({ ...process.env, CHAINPAY_GRPC_ADDR: `127.0.0.1:${daemon.grpcPort}`, PUBLIC_URL: config.publicUrl });
  logger.info(
    { http: `http://127.0.0.1:${port}`, grpc: `127.0.0.1:${daemon.grpcPort}`, dataDir: config.dataDir, chainMode: config.CHAIN_MODE },
    'chainpay is up: try `curl http://127.0.0.1:%d/v1/networks`, then `npm run chainpay -- merchant create --name "My shop" --json`',
    port,
  );
  let signals = 0;
  const shutdown = (signal: NodeJS.Signals): void => {
    if (++signals > 1) process.exit(130);
    logger.info({ signal }, 'shutting down gracefully');
    gateway
      .close()
      .then(() => daemon.stop())
      .then(
        () => process.exit(0),
        (err: unknown) => {
          logger.error({ err }, 'error during shutdown');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch((err: unknown) => {
  // Configuration found wrong only once the database is reached (e.g. keys that are not the database's).
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  process.stderr.write(`chainpay failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
