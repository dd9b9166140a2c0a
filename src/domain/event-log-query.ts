import { ValidationError } from './errors';

/**
 * The query of a merchant's event log (`GET /v1/events?after=<cursor>&limit=<n>`). Pure: parsed
 * from the REST query string, nothing read. Validated like the lists' queries (list-query.ts):
 * unknown or repeated parameters are 422, nothing is ignored.
 */
export interface EventLogQuery {
  /** Continue strictly after this position; the start of the log when the caller sent none. */
  readonly after: EventLogCursor;
  readonly limit: number;
}

/**
 * A position in the log: the (tx_id, seq) of the last event read. Both are decimal text (xid8 and
 * bigint exceed a JS number's exact range), canonical (no sign, no leading zero).
 */
export interface EventLogCursor {
  readonly txId: string;
  readonly seq: string;
}

export const EVENT_LOG_DEFAULT_LIMIT = 50;
export const EVENT_LOG_MAX_LIMIT = 100;

/** Before every event: (0, 0). */
export const EVENT_LOG_START: EventLogCursor = { txId: '0', seq: '0' };

const PARAMS = ['after', 'limit'] as const;
/** Canonical unsigned decimal: "0" or no leading zero. */
const DECIMAL = /^(0|[1-9]\d*)$/;
/** xid8 is an unsigned 64-bit integer; seq a positive bigint. */
const XID8_MAX = 18446744073709551615n;
const BIGINT_MAX = 9223372036854775807n;
const CURSOR_PREFIX = 'e1.';

/** 422 `unknown_field`, `invalid_limit`, `invalid_cursor` (field `after`), or a repeated parameter `invalid_<name>`. */
export function parseEventLogQuery(query: string): EventLogQuery {
  const params = new URLSearchParams(query);
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!(PARAMS as readonly string[]).includes(name)) throw new ValidationError('unknown_field', `unknown query parameter; the event log accepts ${PARAMS.join(', ')}`, name.slice(0, 200));
    if (seen.has(name)) throw new ValidationError(`invalid_${name === 'after' ? 'cursor' : name}`, `${name} is given more than once`, name);
    seen.add(name);
  }
  const after = params.get('after');
  return { after: after === null ? EVENT_LOG_START : decodeEventCursor(after), limit: limitOf(params.get('limit')) };
}

function limitOf(value: string | null): number {
  if (value === null) return EVENT_LOG_DEFAULT_LIMIT;
  const n = /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= EVENT_LOG_MAX_LIMIT)) throw new ValidationError('invalid_limit', `limit must be an integer from 1 to ${EVENT_LOG_MAX_LIMIT}`, 'limit');
  return n;
}

/** Opaque to clients: base64url of `e1.<tx_id>.<seq>`. */
export function encodeEventCursor(cursor: EventLogCursor): string {
  return Buffer.from(`${CURSOR_PREFIX}${cursor.txId}.${cursor.seq}`, 'utf8').toString('base64url');
}

/**
 * Strict: only a string encodeEventCursor can produce is accepted (the decoded text re-encodes to
 * the very same string, so padding, stray characters or another alphabet are refused).
 */
export function decodeEventCursor(value: string): EventLogCursor {
  const invalid = () => new ValidationError('invalid_cursor', 'after is not a cursor this service gave out', 'after');
  if (value.length === 0 || value.length > 80 || !/^[A-Za-z0-9_-]+$/.test(value)) throw invalid();
  const text = Buffer.from(value, 'base64url').toString('utf8');
  if (!text.startsWith(CURSOR_PREFIX)) throw invalid();
  const parts = text.slice(CURSOR_PREFIX.length).split('.');
  if (parts.length !== 2) throw invalid();
  const [txId, seq] = parts as [string, string];
  if (!DECIMAL.test(txId) || !DECIMAL.test(seq) || txId.length > 20 || seq.length > 19) throw invalid();
  if (BigInt(txId) > XID8_MAX || BigInt(seq) > BIGINT_MAX) throw invalid();
  const cursor = { txId, seq };
  if (encodeEventCursor(cursor) !== value) throw invalid();
  return cursor;
}
