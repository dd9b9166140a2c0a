/**
 * A refused or failed call: the HTTP status and the error body chainpay sends
 * (`{"error":{"code","message","field"?,"id"?,"details"?}}`, docs/api.md "Errors").
 * Branch on `code` (stable, snake_case), not on `message` (for people).
 */
export class ChainpayError extends Error {
  override readonly name = 'ChainpayError';
  /** The HTTP status (401, 422, 503, …). */
  readonly status: number;
  /** `invalid_signature`, `amount_below_minimum`, `pool_exhausted`, …; `http_<status>` when the body was not chainpay's. */
  readonly code: string;
  /** The input at fault, when one is (`amount`, `netwrok`, `cursor`). */
  readonly field: string | undefined;
  /** The log line to ask the operator about (500 `internal`). */
  readonly id: string | undefined;
  /** Extra facts some errors carry (`server_time` of `stale_timestamp`, `status` of `cancel_not_allowed`). */
  readonly details: Readonly<Record<string, unknown>> | undefined;
  /** Seconds to wait before retrying (429 and 503 send `Retry-After`). */
  readonly retryAfter: number | undefined;
  /** The method and request target of the call. */
  readonly request: string;

  constructor(init: { status: number; code: string; message: string; field?: string; id?: string; details?: Record<string, unknown>; retryAfter?: number; request: string }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.field = init.field;
    this.id = init.id;
    this.details = init.details;
    this.retryAfter = init.retryAfter;
    this.request = init.request;
  }
}

/** The ChainpayError of a non-2xx answer: chainpay's error body when it is one, else `http_<status>`. */
export function errorFromResponse(status: number, text: string, retryAfterHeader: string | null, request: string): ChainpayError {
  const retryAfter = retryAfterHeader !== null && /^\d+$/.test(retryAfterHeader.trim()) ? Number(retryAfterHeader.trim()) : undefined;
  const body = parseErrorBody(text);
  if (body === undefined) return new ChainpayError({ status, code: `http_${status}`, message: text.slice(0, 200) || `HTTP ${status}`, retryAfter, request });
  return new ChainpayError({ status, ...body, retryAfter, request });
}

function parseErrorBody(text: string): { code: string; message: string; field?: string; id?: string; details?: Record<string, unknown> } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const error = isObject(parsed) ? parsed.error : undefined;
  if (!isObject(error) || typeof error.code !== 'string') return undefined;
  return {
    code: error.code,
    message: typeof error.message === 'string' ? error.message : error.code,
    field: typeof error.field === 'string' ? error.field : undefined,
    id: typeof error.id === 'string' ? error.id : undefined,
    details: isObject(error.details) ? error.details : undefined,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
