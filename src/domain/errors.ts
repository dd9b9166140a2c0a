/**
 * Domain errors. Each class names one kind of refusal; the boundary maps the kind to a transport
 * status once (grpc/errors.ts: kind -> gRPC status; gateway/errors.ts: gRPC status -> HTTP).
 * Retry decisions look at the class or `kind`, never at message text.
 */
export type DomainErrorKind =
  | 'malformed' // the request cannot be read (wrong JSON type, missing required field): HTTP 400
  | 'unauthenticated' // missing/unknown key or bad signature: 401
  | 'forbidden' // authenticated but not allowed: 403
  | 'not_found' // unknown or another merchant's resource: 404
  | 'conflict' // the resource's state forbids the change: 409
  | 'invalid' // semantic validation or business rule: 422
  | 'rate_limited' // 429
  | 'unavailable' // dependency down, retry later: 503
  | 'unimplemented' // the call exists in the contract but is not built (yet): gRPC UNIMPLEMENTED, HTTP 501
  | 'internal'; // 500

export type DomainErrorDetails = Record<string, string | number | boolean | null | undefined>;

export class DomainError extends Error {
  override readonly name: string = 'DomainError';
  constructor(
    readonly kind: DomainErrorKind,
    /** snake_case code shown to clients, e.g. `amount_below_minimum`. */
    readonly code: string,
    message: string,
    /** The single input at fault, when there is one (REST `error.field`). */
    readonly field?: string,
    readonly details: DomainErrorDetails = {},
  ) {
    super(message);
  }
}

export class MalformedRequestError extends DomainError {
  override readonly name = 'MalformedRequestError';
  constructor(message: string, field?: string, code = 'invalid_body') {
    super('malformed', code, message, field);
  }
}

export class ValidationError extends DomainError {
  override readonly name = 'ValidationError';
  constructor(code: string, message: string, field?: string, details?: DomainErrorDetails) {
    super('invalid', code, message, field, details);
  }
}

export class NotFoundError extends DomainError {
  override readonly name = 'NotFoundError';
  constructor(resource: string, id?: string) {
    super('not_found', `${resource}_not_found`, `${resource} not found`, undefined, { id });
  }
}

export class ConflictError extends DomainError {
  override readonly name = 'ConflictError';
  constructor(code: string, message: string, field?: string, details?: DomainErrorDetails) {
    super('conflict', code, message, field, details);
  }
}

export class UnauthenticatedError extends DomainError {
  override readonly name = 'UnauthenticatedError';
  constructor(code: string, message: string) {
    super('unauthenticated', code, message);
  }
}

export class ForbiddenError extends DomainError {
  override readonly name = 'ForbiddenError';
  constructor(code: string, message: string) {
    super('forbidden', code, message);
  }
}

export class UnavailableError extends DomainError {
  override readonly name = 'UnavailableError';
  constructor(code: string, message: string, details?: DomainErrorDetails) {
    super('unavailable', code, message, undefined, details);
  }
}

export class NotImplementedError extends DomainError {
  override readonly name = 'NotImplementedError';
  constructor(what: string) {
    super('unimplemented', 'not_implemented', `${what} is not implemented`);
  }
}
