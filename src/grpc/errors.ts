import { randomUUID } from 'node:crypto';
import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { DomainError, type DomainErrorKind } from '../domain/errors';
import { CallCancelledError } from './call-cancelled';

/** The one mapping domain -> gRPC. The gateway maps gRPC -> HTTP in gateway/errors.ts. */
const STATUS_OF_KIND: Record<DomainErrorKind, status> = {
  malformed: status.INVALID_ARGUMENT,
  unauthenticated: status.UNAUTHENTICATED,
  forbidden: status.PERMISSION_DENIED,
  not_found: status.NOT_FOUND,
  conflict: status.ABORTED,
  invalid: status.FAILED_PRECONDITION,
  rate_limited: status.RESOURCE_EXHAUSTED,
  unavailable: status.UNAVAILABLE,
  unimplemented: status.UNIMPLEMENTED,
  internal: status.INTERNAL,
};

export const ERROR_CODE_KEY = 'chainpay-error-code';
export const ERROR_FIELD_KEY = 'chainpay-error-field';
export const ERROR_ID_KEY = 'chainpay-error-id';
export const RETRY_AFTER_KEY = 'retry-after';
/** The field, UTF-8, when it is not printable ASCII (an unknown JSON key can be any text): ASCII metadata cannot carry it. */
export const ERROR_FIELD_BIN_KEY = 'chainpay-error-field-bin';
const PRINTABLE_ASCII = /^[ -~]*$/;

export function toServiceError(error: unknown, logger: Logger, context: Record<string, unknown> = {}): Partial<ServiceError> {
  const metadata = new Metadata();
  if (error instanceof CallCancelledError) {
    // Not a fault: the caller left (or its deadline passed) before the handler wrote anything.
    logger.debug({ ...context }, error.message);
    return { code: status.CANCELLED, details: error.message, metadata };
  }
  if (error instanceof DomainError) {
    metadata.set(ERROR_CODE_KEY, error.code);
    if (error.field) {
      if (PRINTABLE_ASCII.test(error.field)) metadata.set(ERROR_FIELD_KEY, error.field);
      else metadata.set(ERROR_FIELD_BIN_KEY, Buffer.from(error.field, 'utf8'));
    }
    // 429 and 503 tell the client when to try again (the gateway's Retry-After).
    const retryAfter = error.details.retry_after_seconds;
    if (typeof retryAfter === 'number' && Number.isInteger(retryAfter) && retryAfter > 0) metadata.set(RETRY_AFTER_KEY, String(retryAfter));
    if (error.kind === 'internal' || error.kind === 'unavailable') logger.warn({ err: error, ...context }, error.message);
    return { code: STATUS_OF_KIND[error.kind], details: error.message, metadata };
  }
  const id = randomUUID();
  metadata.set(ERROR_CODE_KEY, 'internal');
  metadata.set(ERROR_ID_KEY, id);
  logger.error({ err: error, errorId: id, ...context }, 'unhandled error in gRPC handler');
  return { code: status.INTERNAL, details: `internal error (id ${id})`, metadata };
}
