import type { Logger } from 'pino';
import type { Metadata, sendUnaryData, ServerUnaryCall, ServerWritableStream, ServiceError } from '@grpc/grpc-js';
import { toServiceError } from './errors';

/** A request id as the gateway makes them (a UUID) or a caller passes one: short, printable, no spaces. */
const REQUEST_ID = /^[\x21-\x7e]{1,128}$/;

/** The call's `x-request-id` (the gateway's request id) when it has a usable one. */
export function requestIdOf(md: Metadata): string | undefined {
  const v = md.get('x-request-id')[0];
  return typeof v === 'string' && REQUEST_ID.test(v) ? v : undefined;
}

/**
 * The log of one call: the daemon's logger with the gateway's request id (`requestId`) on every
 * line, so a line of the daemon is found from the gateway's `request_id` (and from the
 * X-Request-Id a merchant was answered with). Read on first use only: most calls (reads) log nothing.
 */
export class CallLog {
  #requestId: string | undefined | null = null;
  #logger: Logger | undefined;

  constructor(
    private readonly base: Logger,
    private readonly metadata: Metadata,
  ) {}

  get requestId(): string | undefined {
    if (this.#requestId === null) this.#requestId = requestIdOf(this.metadata);
    return this.#requestId;
  }

  get logger(): Logger {
    if (this.#logger === undefined) {
      const requestId = this.requestId;
      this.#logger = requestId === undefined ? this.base : this.base.child({ requestId });
    }
    return this.#logger;
  }
}

/** Wraps an async handler: every error is mapped once, here, at the gRPC boundary. */
export function unary<Req, Res>(logger: Logger, name: string, fn: (call: ServerUnaryCall<Req, Res>, log: CallLog) => Promise<Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    const log = new CallLog(logger, call.metadata);
    fn(call, log).then(
      (res) => callback(null, res),
      (err: unknown) => callback(toServiceError(err, logger, { rpc: name, requestId: log.requestId }) as ServiceError),
    );
  };
}

export function serverStream<Req, Res>(logger: Logger, name: string, fn: (call: ServerWritableStream<Req, Res>, log: CallLog) => Promise<void>) {
  return (call: ServerWritableStream<Req, Res>): void => {
    const log = new CallLog(logger, call.metadata);
    fn(call, log).then(
      () => call.end(),
      (err: unknown) => {
        if (call.cancelled) return;
        call.emit('error', toServiceError(err, logger, { rpc: name, requestId: log.requestId }) as ServiceError);
      },
    );
  };
}
