import { loadConfig, ConfigError } from './config/config';
import { FamilyConfigError } from './chains/errors';
import { createLogger } from './observability/logger';
import { startDaemon } from './daemon';
import { stopOnSignals, STOP_MARGIN_MS } from '../gateway/stop-on-signals';

/** Composition root of the daemon process: config -> db -> chains -> actors -> gRPC server. */
async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
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
  // Until here a signal ends the process at once (Node's default): startup cannot be interrupted
  // halfway, and a standby waits in it for the engine lock. An embedded PostgreSQL left running
  // that way is stopped by the next start (src/store/embedded-postgres.ts).
  stopOnSignals({ logger, deadlineMs: config.SHUTDOWN_GRACE_MS + STOP_MARGIN_MS, stop: () => daemon.stop() });
}

main().catch((err: unknown) => {
  // Configuration found wrong only once the database or the chain is reached (e.g. keys that are not
  // the database's, a SOLANA_TOKEN_MINT that is no USDT mint on that RPC).
  if (err instanceof ConfigError || err instanceof FamilyConfigError) {
    process.stderr.write(`${err.message}\n`);
    process.exit(78);
  }
  process.stderr.write(`chainpay daemon failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
