/**
 * How log lines are written: JSON (one object per line, for machines: a file, a pipe, a log
 * collector) or pretty (pino-pretty, for a person at a terminal). Pure (src/lib): the daemon's and
 * the gateway's loggers each load pino-pretty themselves (the gateway imports nothing of the daemon).
 *
 * `LOG_FORMAT=json` or `pretty` decides; unset, it is pretty only when stdout is a terminal and
 * NODE_ENV is not `production` (the image sets it). Pretty needs pino-pretty, a dev dependency: a
 * production install (`npm ci --omit=dev`) has none and writes JSON whatever was asked.
 */
export type LogFormat = 'json' | 'pretty';

/** A LOG_FORMAT value that is neither `json` nor `pretty`. */
export class LogFormatError extends Error {
  override readonly name = 'LogFormatError';
  constructor(readonly value: string) {
    super('LOG_FORMAT must be json or pretty');
  }
}

export function chooseLogFormat(env: Readonly<Record<string, string | undefined>>, stdoutIsTty: boolean): LogFormat {
  const asked = env.LOG_FORMAT;
  if (asked === 'json' || asked === 'pretty') return asked;
  if (asked !== undefined && asked !== '') throw new LogFormatError(asked);
  return stdoutIsTty && env.NODE_ENV !== 'production' ? 'pretty' : 'json';
}

/** A line logged with `banner: true` (e.g. "chainpay is up"): pretty output makes it stand out. */
export const BANNER_KEY = 'banner';

const BOLD_GREEN = '\u001b[1;32m';
const BOLD = '\u001b[1m';
const RESET = '\u001b[0m';

/** pino-pretty's messageFormat: the message, in bold green on a banner line (bold without colour). */
export function prettyMessage(log: Readonly<Record<string, unknown>>, messageKey: string, colorize: boolean): string {
  const message = String(log[messageKey] ?? '');
  if (log[BANNER_KEY] !== true) return message;
  return `${colorize ? BOLD_GREEN : BOLD}${message}${RESET}`;
}

/**
 * The options given to pino-pretty: time of day instead of epoch milliseconds; pid, hostname,
 * `service` and the banner flag left out (the logger's name, in parentheses, names the service:
 * `npm start` mixes daemon and gateway lines).
 */
export function prettyOptions(colorize: boolean): Record<string, unknown> {
  return {
    colorize,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: `pid,hostname,service,${BANNER_KEY}`,
    messageFormat: (log: Record<string, unknown>, messageKey: string) => prettyMessage(log, messageKey, colorize),
  };
}
