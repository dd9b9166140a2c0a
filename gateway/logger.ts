import pino, { type Logger } from 'pino';

/**
 * The gateway's log: stdout, written in batches of ~4 KiB or every 100 ms, synchronously (so the
 * lines flushed at exit never overtake a batch still being written), as the daemon's
 * (src/observability/logger.ts says why; the gateway imports nothing of the daemon's).
 * A synchronous write(2) per request line was the largest single cost of a GET after the
 * response's own write. pino flushes it synchronously at exit; a SIGKILL loses at most 100 ms.
 * One destination per process, shared by every gateway made in it, so their batches never
 * interleave (the daemon's logger does the same).
 */
let stdout: pino.DestinationStream | undefined;

export function createGatewayLogger(level = 'info'): Logger {
  if (!stdout) {
    const destination = pino.destination({ dest: 1, sync: true, minLength: 4096, periodicFlush: 100 });
    // pino flushes at exit only the asynchronous destinations it made itself: this one is flushed
    // here ('exit' also comes after an uncaught exception).
    process.on('exit', () => {
      try {
        destination.flushSync();
      } catch {
        // Closed already (end() was called): nothing left to write.
      }
    });
    stdout = destination;
  }
  return pino({ name: 'chainpay-gateway', level, base: { service: 'chainpay-gateway' } }, stdout);
}
