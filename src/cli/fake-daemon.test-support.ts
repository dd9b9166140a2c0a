/**
 * A test double of the daemon: a REAL grpc-js server on an ephemeral port serving the six services.
 * Every call is recorded (method, decoded request, metadata). A method answers what the test set
 * with `respond`/`fail`/`streamWith`, else UNIMPLEMENTED.
 */
import {
  Metadata,
  Server,
  ServerCredentials,
  status,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type UntypedServiceImplementation,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { DevnetServiceService } from '../grpc/generated/chainpay/v1/devnet';
import { InvoiceServiceService } from '../grpc/generated/chainpay/v1/invoices';
import { MerchantServiceService } from '../grpc/generated/chainpay/v1/merchants';
import { NetworkServiceService } from '../grpc/generated/chainpay/v1/networks';
import { OperatorServiceService } from '../grpc/generated/chainpay/v1/operator';
import { WithdrawalServiceService } from '../grpc/generated/chainpay/v1/withdrawals';

export interface RecordedCall {
  readonly method: string;
  readonly request: any;
  readonly metadata: Readonly<Record<string, string>>;
}

export interface DaemonError {
  readonly code: status;
  readonly details: string;
  readonly errorCode?: string;
  readonly field?: string;
}

type Unary = (request: unknown) => unknown;
type Streaming = (call: ServerWritableStream<unknown, unknown>) => void;

const SERVICES = [MerchantServiceService, NetworkServiceService, InvoiceServiceService, WithdrawalServiceService, OperatorServiceService, DevnetServiceService];

export class FakeDaemon {
  readonly calls: RecordedCall[] = [];
  private readonly unary = new Map<string, Unary>();
  private readonly streams = new Map<string, Streaming>();

  private constructor(
    private readonly server: Server,
    readonly address: string,
  ) {}

  static async start(): Promise<FakeDaemon> {
    const server = new Server();
    const port = await new Promise<number>((ok, ko) => server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? ko(e) : ok(p))));
    const daemon = new FakeDaemon(server, `127.0.0.1:${port}`);
    for (const def of SERVICES) server.addService(def as unknown as ServiceDefinition, daemon.implement(def));
    return daemon;
  }

  /** Answer `method` with `fn(request)` (a full message: build it with `X.fromPartial`). */
  respond(method: string, fn: Unary): void {
    this.unary.set(method, fn);
  }

  /** Answer `method` with a gRPC error carrying the daemon's trailing metadata. */
  fail(method: string, err: DaemonError): void {
    this.unary.set(method, () => {
      throw err;
    });
  }

  streamWith(method: string, fn: Streaming): void {
    this.streams.set(method, fn);
  }

  last(method: string): RecordedCall {
    const found = [...this.calls].reverse().find((c) => c.method === method);
    if (!found) throw new Error(`no call to ${method}; calls: ${this.calls.map((c) => c.method).join(', ')}`);
    return found;
  }

  reset(): void {
    this.calls.length = 0;
    this.unary.clear();
    this.streams.clear();
  }

  stop(): Promise<void> {
    return new Promise((ok) => this.server.tryShutdown(() => ok()));
  }

  private record(method: string, request: unknown, metadata: Metadata): void {
    const md: Record<string, string> = {};
    for (const [k, v] of Object.entries(metadata.getMap())) md[k] = String(v);
    this.calls.push({ method, request, metadata: md });
  }

  private implement(def: Record<string, { responseStream: boolean }>): UntypedServiceImplementation {
    const impl: UntypedServiceImplementation = {};
    for (const [method, m] of Object.entries(def)) {
      impl[method] = m.responseStream
        ? (call: ServerWritableStream<unknown, unknown>) => {
            this.record(method, call.request, call.metadata);
            const fn = this.streams.get(method);
            if (fn) fn(call);
            else call.destroy(Object.assign(new Error('not in this test'), { code: status.UNIMPLEMENTED }));
          }
        : (call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => {
            this.record(method, call.request, call.metadata);
            const fn = this.unary.get(method);
            if (!fn) return cb({ code: status.UNIMPLEMENTED, details: `${method} not in this test` });
            try {
              cb(null, fn(call.request));
            } catch (e) {
              const err = e as DaemonError;
              const trailers = new Metadata();
              if (err.errorCode) trailers.set('chainpay-error-code', err.errorCode);
              if (err.field) trailers.set('chainpay-error-field', err.field);
              cb({ code: err.code ?? status.INTERNAL, details: err.details ?? String(e), metadata: trailers });
            }
          };
    }
    return impl;
  }
}
