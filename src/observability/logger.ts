import pino, { type Logger } from 'pino';
import { chooseLogFormat, prettyOptions } from '../lib/log-format';

/** Structured JSON logs. Secrets never reach a log line: these paths are redacted wherever they appear. */
export const REDACTED_PATHS = [
  'api_secret',
  '*.api_secret',
  'apiSecret',
  '*.apiSecret',
  'secret',
  '*.secret',
  'webhook_secret',
  '*.webhook_secret',
  'mnemonic',
  '*.mnemonic',
  'privateKey',
  '*.privateKey',
  'authorization',
  '*.authorization',
  'masterKey',
  '*.masterKey',
  'operatorToken',
  '*.operatorToken',
];

/**
 * One stdout destination per process, written in batches: lines are written once 4 KiB have
 * gathered or at the latest FLUSH_MS after they were logged. A write(2) per line (a request log
 * line per /v1 call) was ~25 µs of the gateway's CPU per request on 2 cores, ~9% of a GET
 * (measured); a batch of ~4 KiB costs about as much as one line. pino flushes synchronously when
 * the process exits (also on an uncaught exception), so only a SIGKILL can lose lines: those of its
 * last FLUSH_MS. Shared, so two loggers in one process (`npm start`) never interleave their batches.
 *
 * The batches are written synchronously (sync: true): with asynchronous writes, a batch still being
 * written by the thread pool when the process exits lands AFTER the lines the exit flush writes
 * synchronously (sonic-boom's flushSync skips the batch in flight), so the last lines came out of
 * order (logger.test.ts caught it). One write(2) per 4 KiB costs the same either way.
 */
let stdout: pino.DestinationStream | undefined;
const BATCH_BYTES = 4096;
const FLUSH_MS = 100;

export function createLogger(level: string, name = 'chainpay'): Logger {
  stdout ??= prettyStdout();
  if (!stdout) {
    const destination = pino.destination({ dest: 1, sync: true, minLength: BATCH_BYTES, periodicFlush: FLUSH_MS });
    // pino flushes at exit only the asynchronous destinations it made itself: this one is flushed
    // here ('exit' also comes after an uncaught exception).
    process.on('exit', () => {
      try {
        // flush() first: when stdout's reader has gone (`npm start | tee log`, then Ctrl-C), its
        // write fails with EPIPE through sonic-boom's error path, where pino stops logging
        // (flushSync becomes a no-op). sonic-boom 4's flushSync alone retried that write every
        // 100 ms forever, and the process never exited (test/foundation/stop-piped.test.ts).
        destination.flush();
        destination.flushSync();
      } catch {
        // Closed already (end() was called): nothing left to write.
      }
    });
    stdout = destination;
  }
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: name } }, stdout);
}

/**
 * pino-pretty on stdout when the format is pretty (docs/operations.md, Logs): at a terminal in
 * development, or LOG_FORMAT=pretty. Written synchronously, line by line (a person reads it; the
 * batching above is for machines). undefined: JSON, including where pino-pretty is not installed.
 */
function prettyStdout(env: NodeJS.ProcessEnv = process.env): pino.DestinationStream | undefined {
  const tty = process.stdout.isTTY === true;
  if (chooseLogFormat(env, tty) !== 'pretty') return undefined;
  return loadPretty(tty && env.NO_COLOR === undefined);
}

/** pino-pretty is a dev dependency: absent from a production install, whose logs stay JSON. */
function loadPretty(colorize: boolean): pino.DestinationStream | undefined {
  let build: (options: Record<string, unknown>) => pino.DestinationStream;
  try {
    build = (require('pino-pretty') as { build: typeof build }).build;
  } catch {
    return undefined;
  }
  return build(prettyOptions(colorize));
}

export type { Logger };
