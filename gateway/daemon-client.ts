import { Client, credentials, type ChannelCredentials, type ChannelOptions, type Metadata } from '@grpc/grpc-js';
import type { CallCancellation } from './call-cancellation';
import { RelayClient } from './relay-client';
import type { UnaryMethod } from './unary-method';

export type { UnaryMethod } from './unary-method';

/**
 * The signed body travels in metadata (up to 64 KiB, ~87 KiB base64), so the limit is raised; the
 * daemon sets the same value. (grpc-js 1.14 does not enforce this option; what binds is HTTP/2's
 * 64 KiB per header field, which auth.ts avoids by splitting the body over several values.)
 */
export const CHANNEL_OPTIONS: ChannelOptions = {
  'grpc.max_metadata_size': 256 * 1024,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  // The relay stream carries every call's response: a window of 64 KiB (HTTP/2's default) would
  // hold the daemon back after about a dozen invoices in flight.
  'grpc-node.flow_control_window': 8 * 1024 * 1024,
};

export const DEFAULT_DEADLINE_MS = 15_000;

/**
 * One channel to the daemon, shared by every call; closing it is the last step of shutdown.
 * `call` goes over the relay stream (gateway/relay-client.ts), `direct` as a unary call of its own.
 */
export class DaemonClient {
  readonly #client: Client;
  readonly #relay: RelayClient;
  readonly #deadlineMs: number;

  constructor(address: string, opts: { credentials?: ChannelCredentials; deadlineMs?: number } = {}) {
    this.#client = new Client(address, opts.credentials ?? credentials.createInsecure(), CHANNEL_OPTIONS);
    this.#relay = new RelayClient(this.#client, (method, request, metadata, deadline, cancellation) => this.#unary(method, request, metadata, deadline, cancellation));
    this.#deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
  }

  /**
   * One call of a daemon method with the gateway's deadline; rejects with a grpc-js ServiceError
   * (mapped by errors.ts). A `cancellation` that fires cancels the call (CANCELLED; the daemon's
   * handler sees `call.cancelled`).
   */
  call<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, metadata: Metadata, cancellation?: CallCancellation): Promise<Res> {
    return this.#relay.call(method, request, metadata, Date.now() + this.#deadlineMs, cancellation);
  }

  /** A unary call of its own (the health check: it must see the daemon's gRPC server itself). */
  direct<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, metadata: Metadata, deadlineMs = this.#deadlineMs): Promise<Res> {
    return this.#unary(method, request, metadata, Date.now() + deadlineMs);
  }

  #unary<Req, Res>(method: UnaryMethod<Req, Res>, request: Req, metadata: Metadata, deadline: number, cancellation?: CallCancellation): Promise<Res> {
    return new Promise((resolve, reject) => {
      const call = this.#client.makeUnaryRequest(method.path, method.requestSerialize, method.responseDeserialize, request, metadata, { deadline }, (err, response) => {
        cancellation?.clear();
        if (err) reject(err);
        else resolve(response as Res);
      });
      cancellation?.listen(() => call.cancel());
    });
  }

  close(): void {
    this.#relay.close();
    this.#client.close();
  }
}
