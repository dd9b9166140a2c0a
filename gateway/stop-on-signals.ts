import { constants } from 'node:os';
import { performance } from 'node:perf_hooks';

/**
 * How a chainpay process stops (src/start-all.ts, src/main.ts, gateway/main.ts): SIGTERM or SIGINT
 * drains it (stop()), then it exits 0. It lives here, dependency-free, because the gateway may import
 * nothing of the daemon's while the daemon's entry points may import this.
 *
 * - The process signalled is the one that drains: `npm start` runs `exec node ...` (package.json),
 *   so npm's child is this process, and npm forwards SIGTERM/SIGINT to it and waits for its exit.
 * - One Ctrl-C arrives twice: the terminal signals its whole process group (npm and us), and npm
 *   forwards its copy. A repeat within REPEAT_WINDOW_MS of the first signal is that same request.
 * - A later second signal means "now": exit 128 + signal number at once, without draining.
 * - The drain is bounded: if it has not finished deadlineMs after the signal, the process exits 1
 *   (a container runtime would SIGKILL it a little later anyway; this way it says why).
 * - A stdout or stderr whose reader has gone (`npm start | tee log`, then Ctrl-C) fails writes with
 *   EPIPE; that must not end the process in an uncaught 'error' halfway through its drain.
 */

/** The log calls made here; a pino Logger has them. */
export interface StopLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

export interface StopOnSignalsOptions {
  /** Drains the process: resolves once everything it started has stopped. */
  readonly stop: () => Promise<void>;
  /** From the first signal, how long the drain may take before the process exits 1 anyway. */
  readonly deadlineMs: number;
  readonly logger: StopLogger;
}

/** A signal this soon after the first is the same request (see above). */
export const REPEAT_WINDOW_MS = 1_000;

/**
 * What a drain may take beyond SHUTDOWN_GRACE_MS (the time in-flight requests get): stopping
 * watchers, actors and webhook delivery, closing the database pool, stopping an embedded PostgreSQL.
 */
export const STOP_MARGIN_MS = 15_000;

export function stopOnSignals(options: StopOnSignalsOptions): void {
  ignoreClosedOutput();
  let firstAt: number | null = null;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (firstAt !== null) {
      if (performance.now() - firstAt < REPEAT_WINDOW_MS) return;
      options.logger.warn({ signal }, 'second signal: exiting now');
      process.exit(128 + constants.signals[signal]);
    }
    firstAt = performance.now();
    options.logger.info({ signal, deadlineMs: options.deadlineMs }, 'shutting down gracefully');
    setTimeout(() => {
      options.logger.error({ deadlineMs: options.deadlineMs }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, options.deadlineMs);
    options.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        options.logger.error({ err }, 'error during shutdown');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/**
 * Writes to a stdout/stderr pipe whose reader has exited fail with EPIPE (Node ignores SIGPIPE);
 * such output is lost either way. Any other stream error stays fatal, as without a listener.
 */
function ignoreClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'EPIPE') throw err;
    });
  }
}
