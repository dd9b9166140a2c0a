import { Metadata, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';

/** REST error body: `{"error":{"code","message","field"?}}`; a 500 carries `id` (the request id) instead of detail. */
export interface ErrorBody {
  error: { code: string; message: string; field?: string; id?: string };
}

/** A refusal the gateway answers with. `status` 500 is always rendered as the opaque internal body. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    /** Extra response headers (Allow, Retry-After). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }

  body(requestId: string): ErrorBody {
    if (this.status >= 500 && this.code === 'internal') {
      return { error: { code: 'internal', message: 'internal error', id: requestId } };
    }
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.field !== undefined) error.field = this.field;
    return { error };
  }
}

/** Anything that is not an HttpError: the detail goes to the log, the client sees only the id. */
export function internalError(): HttpError {
  return new HttpError(500, 'internal', 'internal error');
}

interface Mapping {
  readonly http: number;
  /** Used when the daemon did not name a code (the status came from grpc-js itself, or a bug). */
  readonly code: string;
  readonly message: string;
}

/**
 * gRPC status -> HTTP, the one place this mapping lives. Statuses absent here (UNKNOWN, INTERNAL,
 * DATA_LOSS, CANCELLED, ...) become 500 internal.
 */
export const GRPC_TO_HTTP: Readonly<Partial<Record<GrpcStatus, Mapping>>> = {
  [GrpcStatus.INVALID_ARGUMENT]: { http: 400, code: 'invalid_request', message: 'invalid request' },
  [GrpcStatus.UNAUTHENTICATED]: { http: 401, code: 'unauthenticated', message: 'unauthenticated' },
  [GrpcStatus.PERMISSION_DENIED]: { http: 403, code: 'forbidden', message: 'forbidden' },
  [GrpcStatus.NOT_FOUND]: { http: 404, code: 'not_found', message: 'not found' },
  [GrpcStatus.ABORTED]: { http: 409, code: 'conflict', message: 'conflict' },
  [GrpcStatus.ALREADY_EXISTS]: { http: 409, code: 'already_exists', message: 'already exists' },
  [GrpcStatus.FAILED_PRECONDITION]: { http: 422, code: 'failed_precondition', message: 'request cannot be processed' },
  [GrpcStatus.OUT_OF_RANGE]: { http: 422, code: 'out_of_range', message: 'value out of range' },
  [GrpcStatus.RESOURCE_EXHAUSTED]: { http: 429, code: 'rate_limited', message: 'too many requests' },
  [GrpcStatus.UNIMPLEMENTED]: { http: 501, code: 'not_implemented', message: 'not implemented' },
  [GrpcStatus.UNAVAILABLE]: { http: 503, code: 'service_unavailable', message: 'service temporarily unavailable' },
  [GrpcStatus.DEADLINE_EXCEEDED]: { http: 504, code: 'timeout', message: 'the service did not answer in time' },
};

export const ERROR_CODE_KEY = 'chainpay-error-code';
export const ERROR_FIELD_KEY = 'chainpay-error-field';
/** The field as UTF-8 bytes, sent instead of ERROR_FIELD_KEY when it is not printable ASCII. */
export const ERROR_FIELD_BIN_KEY = 'chainpay-error-field-bin';
const SNAKE_CODE = /^[a-z][a-z0-9_]{0,63}$/;

export function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number' && 'details' in err;
}

/**
 * Daemon status -> HttpError. The daemon's message (status details) is shown only when the daemon
 * named a code in `chainpay-error-code`: without one the status came from the transport (connection
 * refused, deadline, ...) and its details name internal addresses, so a fixed message is used.
 */
export function httpErrorFromGrpc(err: ServiceError): HttpError {
  const mapping = GRPC_TO_HTTP[err.code];
  if (mapping === undefined) return internalError();
  const trailers = err.metadata instanceof Metadata ? err.metadata : new Metadata();
  const named = firstString(trailers, ERROR_CODE_KEY);
  const code = named !== undefined && SNAKE_CODE.test(named) ? named : undefined;
  const field = code !== undefined ? firstString(trailers, ERROR_FIELD_KEY) || firstUtf8(trailers, ERROR_FIELD_BIN_KEY) || undefined : undefined;
  const message = code !== undefined && err.details ? err.details : mapping.message;
  const headers: Record<string, string> = {};
  if (mapping.http === 429) headers['Retry-After'] = retryAfterSeconds(trailers);
  // A 503 the daemon named (pool_exhausted): when to try again; a transport 503 has no trailer.
  if (mapping.http === 503 && code !== undefined && firstString(trailers, 'retry-after') !== undefined) headers['Retry-After'] = retryAfterSeconds(trailers);
  return new HttpError(mapping.http, code ?? mapping.code, message, field, headers);
}

/** Any thrown value -> HttpError (unknown errors become 500 internal). */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof HttpError) return err;
  if (isServiceError(err)) return httpErrorFromGrpc(err);
  return internalError();
}

function retryAfterSeconds(trailers: Metadata): string {
  const raw = firstString(trailers, 'retry-after');
  return raw !== undefined && /^[1-9]\d{0,5}$/.test(raw.trim()) ? raw.trim() : '1';
}

function firstUtf8(md: Metadata, key: string): string | undefined {
  const value = md.get(key)[0];
  return Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
}

function firstString(md: Metadata, key: string): string | undefined {
  const value = md.get(key)[0];
  return typeof value === 'string' ? value : undefined;
}
