import { ValidationError } from './errors';
import { isNetworkCode } from './networks';

/**
 * The query of a merchant's list (`GET /v1/invoices`, `GET /v1/withdrawals`): filters, a page size
 * and an opaque keyset cursor. Pure: parsed from the REST query string, nothing read.
 */
export interface ListQuery {
  readonly status: string | null;
  readonly network: string | null;
  /** `order_id` of invoices, `reference` of withdrawals. */
  readonly key: string | null;
  /** Inclusive. */
  readonly createdFrom: Date | null;
  /** Exclusive. */
  readonly createdTo: Date | null;
  readonly limit: number;
  /** Continue after this row (newest first: strictly older, ties broken by uuid descending). */
  readonly after: ListCursor | null;
}

/** The position of the last row of a page: its (created_at, uuid). */
export interface ListCursor {
  readonly createdAt: Date;
  readonly uuid: string;
}

export interface ListQueryShape {
  /** The statuses the `status` filter accepts. */
  readonly statuses: readonly string[];
  /** `order_id` or `reference`. */
  readonly keyParam: string;
}

export const LIST_DEFAULT_LIMIT = 20;
export const LIST_MAX_LIMIT = 100;
const KEY_MAX = 200;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
// RFC 3339 with a zone (Z or ±hh:mm); fractions allowed. Date.parse alone accepts too much.
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/** 422 with the parameter as `field`: `unknown_field`, `invalid_<param>`, `invalid_cursor`. */
export function parseListQuery(query: string, shape: ListQueryShape): ListQuery {
  const params = new URLSearchParams(query);
  const allowed = new Set(['status', 'network', shape.keyParam, 'created_from', 'created_to', 'limit', 'cursor']);
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!allowed.has(name)) throw new ValidationError('unknown_field', `unknown query parameter; this list accepts ${[...allowed].join(', ')}`, name.slice(0, 200));
    if (seen.has(name)) throw new ValidationError(`invalid_${name}`, `${name} is given more than once`, name);
    seen.add(name);
  }
  const status = params.get('status');
  if (status !== null && !shape.statuses.includes(status)) throw new ValidationError('invalid_status', `status must be one of ${shape.statuses.join(', ')}`, 'status');
  const network = params.get('network');
  if (network !== null && !isNetworkCode(network)) throw new ValidationError('invalid_network', 'network is not a network code', 'network');
  const key = params.get(shape.keyParam);
  if (key !== null && (key.length === 0 || key.length > KEY_MAX)) throw new ValidationError(`invalid_${shape.keyParam}`, `${shape.keyParam} must be 1 to ${KEY_MAX} characters`, shape.keyParam);
  const createdFrom = time(params.get('created_from'), 'created_from');
  const createdTo = time(params.get('created_to'), 'created_to');
  return { status, network, key, createdFrom, createdTo, limit: limitOf(params.get('limit')), after: decodeCursor(params.get('cursor')) };
}

function time(value: string | null, field: string): Date | null {
  if (value === null) return null;
  const ms = RFC3339.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw new ValidationError(`invalid_${field}`, `${field} must be an RFC 3339 time such as 2026-01-31T00:00:00Z`, field);
  return new Date(ms);
}

function limitOf(value: string | null): number {
  if (value === null) return LIST_DEFAULT_LIMIT;
  const n = /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= 1 && n <= LIST_MAX_LIMIT)) throw new ValidationError('invalid_limit', `limit must be an integer from 1 to ${LIST_MAX_LIMIT}`, 'limit');
  return n;
}

/** Opaque to clients: base64url of `{"t": created_at (ISO), "u": uuid}`. */
export function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(JSON.stringify({ t: cursor.createdAt.toISOString(), u: cursor.uuid })).toString('base64url');
}

export function decodeCursor(value: string | null): ListCursor | null {
  if (value === null) return null;
  const invalid = () => new ValidationError('invalid_cursor', 'cursor is not one this service gave out', 'cursor');
  if (value.length === 0 || value.length > 200) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  const { t, u } = (parsed ?? {}) as { t?: unknown; u?: unknown };
  if (typeof t !== 'string' || typeof u !== 'string' || !UUID.test(u) || !RFC3339.test(t)) throw invalid();
  return { createdAt: new Date(Date.parse(t)), uuid: u };
}
