import pino, { type Logger } from 'pino';

/** Structured JSON logs. Secrets never reach a log line: these paths are redacted wherever they appear. */
export const REDACTED_PATHS = [
  'api_secret', '*.api_secret', 'apiSecret', '*.apiSecret', 'secret', '*.secret',
  'webhook_secret', '*.webhook_secret', 'mnemonic', '*.mnemonic', 'privateKey', '*.privateKey',
  'authorization', '*.authorization', 'masterKey', '*.masterKey', 'operatorToken', '*.operatorToken',
];

export function createLogger(level: string, name = 'chainpay'): Logger {
  return pino({ name, level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, base: { service: name } });
}

export type { Logger };
