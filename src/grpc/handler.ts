import type { Logger } from 'pino';
import type { sendUnaryData, ServerUnaryCall, ServerWritableStream, ServiceError } from '@grpc/grpc-js';
import { toServiceError } from './errors';

/** Wraps an async handler: every error is mapped once, here, at the gRPC boundary. */
export function unary<Req, Res>(logger: Logger, name: string, fn: (call: ServerUnaryCall<Req, Res>) => Promise<Res>) {
  return (call: ServerUnaryCall<Req, Res>, callback: sendUnaryData<Res>): void => {
    fn(call).then(
      (res) => callback(null, res),
      (err: unknown) => callback(toServiceError(err, logger, { rpc: name, requestId: call.metadata.get('x-request-id')[0] }) as ServiceError),
    );
  };
}

export function serverStream<Req, Res>(logger: Logger, name: string, fn: (call: ServerWritableStream<Req, Res>) => Promise<void>) {
  return (call: ServerWritableStream<Req, Res>): void => {
    fn(call).then(
      () => call.end(),
      (err: unknown) => {
        if (call.cancelled) return;
        call.emit('error', toServiceError(err, logger, { rpc: name }) as ServiceError);
      },
    );
  };
}
