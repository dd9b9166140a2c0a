import pino, { type Logger } from 'pino';

/** Structured JSON logs. Secrets never reach a log line: these paths are redacted wherever they appear. */
export const REDACTED_PATHS = [
  'api_secret', '*.api_secret', 'apiSecret', '*.apiSecret', 'secret', '*.secret',
  'webhook_secret', '*.webhook_secret', 'mnemonic', '*.mnemonic', 'privateKey', '*.privateKey',
  'authorization', '*.authorization', 'masterKey', '*.masterKey', 'operatorToken', '*.operatorToken',
];

/**
 * One stdout destination per process, written asynchronously: lines logged while a write is in
 * flight go out together in the next one (a request log line per /v1 call was one write(2) each,
 * ~4% of the gateway's CPU under load). pino flushes it synchronously when the process exits, so
 * lines logged just before an exit are not lost; shared, so two loggers in one process (`npm start`)
 * never interleave their batches.
 */
let stdout: pino.DestinationStream | undefined;

export function createLogger(level: string, name = 'chainpay'): Logger {
  stdout ??= pino.destination({ dest: 1, sync: false });
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: name } }, stdout);
}

export type { Logger };
