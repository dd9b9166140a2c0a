import { loadConfig, ConfigError } from './config/config';
import { createLogger } from './observability/logger';
import { startDaemon } from './daemon';

/** Composition root of the daemon process: config -> db -> chains -> actors -> gRPC server. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw e;
  }
  const logger = createLogger(config.LOG_LEVEL, 'chainpay-daemon');
  const daemon = await startDaemon(config, {
    logger,
    // Without the lock another daemon may already be active: exit at once, let the supervisor restart us.
    onEngineLockLost: () => process.exit(75),
  });
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (++signals > 1) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(130);
    }
    logger.info({ signal }, 'shutting down gracefully');
    daemon.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

main().catch((err: unknown) => {
  // Configuration found wrong only once the database is reached (e.g. keys that are not the database's).
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  process.stderr.write(`chainpay daemon failed to start: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
  process.exit(1);
});
