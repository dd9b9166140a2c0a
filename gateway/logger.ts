import pino, { type Logger } from 'pino';
import { batchedStdout } from './batched-stdout';

/**
 * The gateway's log: stdout in batches of ~4 KiB or every 100 ms, through the process's one
 * batched destination (gateway/batched-stdout.ts). A synchronous write(2) per request line was the
 * largest single cost of a GET after the response's own write.
 */
export function createGatewayLogger(level = 'info'): Logger {
  return pino({ name: 'chainpay-gateway', level, base: { service: 'chainpay-gateway' } }, batchedStdout());
}
