import pino, { type Logger } from 'pino';

/**
 * The gateway's log: stdout, written asynchronously in batches of ~4 KiB or every 100 ms, as the
 * daemon's (src/observability/logger.ts says why; the gateway imports nothing of the daemon's).
 * A synchronous write(2) per request line was the largest single cost of a GET after the
 * response's own write. pino flushes it synchronously at exit; a SIGKILL loses at most 100 ms.
 * One destination per process, shared by every gateway made in it, so their batches never
 * interleave (the daemon's logger does the same).
 */
let stdout: pino.DestinationStream | undefined;

export function createGatewayLogger(level = 'info'): Logger {
  stdout ??= pino.destination({ dest: 1, sync: false, minLength: 4096, periodicFlush: 100 });
  return pino({ name: 'chainpay-gateway', level, base: { service: 'chainpay-gateway' } }, stdout);
}
