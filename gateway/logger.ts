import pino, { type Logger } from 'pino';
import { chooseLogFormat, prettyOptions } from '../src/lib/log-format';

/** Lines are written once this many bytes have gathered (~10 request lines)... */
const BATCH_BYTES = 4096;
/** ...or at the latest this long after they were logged. */
const FLUSH_MS = 100;

let stdout: pino.DestinationStream | undefined;

/**
 * The gateway's one stdout destination per process, shared by every gateway logger made in it:
 * pino's own (sonic-boom), batching as the daemon's does (src/observability/logger.ts; the gateway
 * imports nothing of the daemon's). A write(2) per request line was the largest single cost of a
 * GET after the response's own write. Synchronous writes: with asynchronous ones, a batch still in
 * the thread pool when the process exits lands after the lines the exit flush writes.
 *
 * pino flushes at exit only the destinations it made itself, so this one is flushed on 'exit'
 * (which also follows an uncaught exception); only a SIGKILL loses lines, those of its last FLUSH_MS.
 */
function gatewayStdout(): pino.DestinationStream {
  if (stdout) return stdout;
  // A person at a terminal (or LOG_FORMAT=pretty): pino-pretty, as the daemon's (src/observability/logger.ts).
  const tty = process.stdout.isTTY === true;
  if (chooseLogFormat(process.env, tty) === 'pretty') {
    stdout = loadPretty(tty && process.env.NO_COLOR === undefined);
    if (stdout) return stdout;
  }
  const destination = pino.destination({ dest: 1, sync: true, minLength: BATCH_BYTES, periodicFlush: FLUSH_MS });
  process.on('exit', () => {
    try {
      // flush() first: on a stdout whose reader has gone, its write fails with EPIPE through
      // sonic-boom's error path, where pino stops logging (flushSync becomes a no-op); sonic-boom
      // 4's flushSync alone retried that write every 100 ms forever (src/observability/logger.ts).
      destination.flush();
      destination.flushSync();
    } catch {
      // stdout closed already: nothing can be written.
    }
  });
  stdout = destination;
  return destination;
}

export function createGatewayLogger(level = 'info'): Logger {
  return pino({ name: 'chainpay-gateway', level, base: { service: 'chainpay-gateway' } }, gatewayStdout());
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
