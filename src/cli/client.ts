import { credentials, Metadata, status, type CallOptions, type Client, type ClientReadableStream, type ClientUnaryCall, type ServiceError } from '@grpc/grpc-js';
import { DashboardUserServiceClient } from '../grpc/generated/chainpay/v1/dashboard';
import { DevnetServiceClient } from '../grpc/generated/chainpay/v1/devnet';
import { InvoiceServiceClient } from '../grpc/generated/chainpay/v1/invoices';
import { MerchantServiceClient } from '../grpc/generated/chainpay/v1/merchants';
import { NetworkServiceClient } from '../grpc/generated/chainpay/v1/networks';
import { OperatorServiceClient } from '../grpc/generated/chainpay/v1/operator';
import { TreasuryServiceClient } from '../grpc/generated/chainpay/v1/treasury';
import { WithdrawalServiceClient } from '../grpc/generated/chainpay/v1/withdrawals';
import { CliError } from './errors';
import { tokenHelp, type DaemonTarget } from './target';

/** The last overload of a generated unary method: (request, metadata, options, callback). */
export type UnaryMethod<Req, Res> = (request: Req, metadata: Metadata, options: Partial<CallOptions>, callback: (error: ServiceError | null, response: Res) => void) => ClientUnaryCall;

/** The last overload of a generated server-streaming method. */
export type StreamMethod<Req, Res> = (request: Req, metadata?: Metadata, options?: Partial<CallOptions>) => ClientReadableStream<Res>;

/** Extra request metadata, e.g. `x-merchant-id` for merchant-facing services. */
export type ExtraMetadata = Readonly<Record<string, string | undefined>>;

const UNARY_DEADLINE_MS = 30_000;

/** The daemon's codes for a call without the operator token, or with a wrong one (src/grpc/auth.ts). */
const TOKEN_CODES = new Set(['missing_operator_token', 'invalid_operator_token', 'missing_credentials']);

/**
 * gRPC error -> CliError, reading the daemon's trailing `chainpay-error-code` / `-field`. A refusal
 * for want of the operator token says where the CLI looked and what fixes it (tokenHelp).
 */
export function decodeRpcError(err: ServiceError, address?: string, target?: Pick<DaemonTarget, 'tokenLookup'>): CliError {
  const first = (key: string): string | undefined => {
    const v = err.metadata?.get(key)[0];
    return v === undefined || v === '' ? undefined : String(v);
  };
  const statusName = status[err.code] ?? 'UNKNOWN';
  const code = first('chainpay-error-code');
  let message = (err.details || err.message || statusName.toLowerCase()).replace(/\s*Resolution note:\s*$/, '');
  // No daemon code on UNAVAILABLE: the daemon itself is unreachable; say where we looked.
  if (!code && err.code === status.UNAVAILABLE && address) message = `cannot reach the daemon at ${address} (is it running? CHAINPAY_GRPC_ADDR): ${message}`;
  if (err.code === status.UNAUTHENTICATED && code !== undefined && TOKEN_CODES.has(code) && target?.tokenLookup) message = `${message}: ${tokenHelp(target.tokenLookup)}`;
  return new CliError(code ?? statusName.toLowerCase(), message, first('chainpay-error-field'), statusName);
}

/**
 * The generated clients on one insecure channel to the daemon, created on first use, plus the
 * operator token as `authorization: Bearer <token>` and the acting person as `x-operator-name`
 * on every call.
 */
export class Rpc {
  private readonly clients = new Map<string, Client>();

  constructor(readonly target: DaemonTarget) {}

  get merchants(): MerchantServiceClient {
    return this.client('merchants', MerchantServiceClient);
  }
  get networks(): NetworkServiceClient {
    return this.client('networks', NetworkServiceClient);
  }
  get invoices(): InvoiceServiceClient {
    return this.client('invoices', InvoiceServiceClient);
  }
  get withdrawals(): WithdrawalServiceClient {
    return this.client('withdrawals', WithdrawalServiceClient);
  }
  get operator(): OperatorServiceClient {
    return this.client('operator', OperatorServiceClient);
  }
  get dashboardUsers(): DashboardUserServiceClient {
    return this.client('dashboardUsers', DashboardUserServiceClient);
  }
  get treasury(): TreasuryServiceClient {
    return this.client('treasury', TreasuryServiceClient);
  }
  get devnet(): DevnetServiceClient {
    return this.client('devnet', DevnetServiceClient);
  }

  metadata(extra: ExtraMetadata = {}): Metadata {
    const md = new Metadata();
    if (this.target.token) md.set('authorization', `Bearer ${this.target.token}`);
    if (this.target.operatorName) md.set('x-operator-name', this.target.operatorName);
    for (const [k, v] of Object.entries(extra)) if (v !== undefined && v !== '') md.set(k, v);
    return md;
  }

  /** One unary call, e.g. `rpc.call(c, c.getMerchant, req)`; rejects with CliError. */
  call<Req, Res>(client: Client, method: UnaryMethod<Req, Res>, request: Req, extra?: ExtraMetadata): Promise<Res> {
    return new Promise((resolve, reject) => {
      const deadline = new Date(Date.now() + UNARY_DEADLINE_MS);
      method.call(client, request, this.metadata(extra), { deadline }, (err, res) => {
        if (err) reject(decodeRpcError(err, this.target.address, this.target));
        else resolve(res);
      });
    });
  }

  /**
   * A server stream: `onData` per message; resolves when the server ends the stream or `signal`
   * aborts (a cancel we asked for is not an error), rejects with CliError otherwise.
   */
  stream<Req, Res>(client: Client, method: StreamMethod<Req, Res>, request: Req, onData: (message: Res) => void, options: { extra?: ExtraMetadata; signal?: AbortSignal } = {}): Promise<void> {
    return new Promise((resolve, reject) => {
      const call = method.call(client, request, this.metadata(options.extra), {});
      let cancelled = false;
      const onAbort = (): void => {
        cancelled = true;
        call.cancel();
      };
      if (options.signal?.aborted) onAbort();
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const finish = (err?: CliError): void => {
        options.signal?.removeEventListener('abort', onAbort);
        if (err) reject(err);
        else resolve();
      };
      call.on('data', (m: Res) => {
        try {
          onData(m);
        } catch (e) {
          cancelled = true;
          call.cancel();
          finish(e instanceof CliError ? e : new CliError('output_failed', String(e)));
        }
      });
      call.on('error', (err: ServiceError) => finish(cancelled && err.code === status.CANCELLED ? undefined : decodeRpcError(err, this.target.address, this.target)));
      call.on('end', () => finish());
    });
  }

  close(): void {
    for (const c of this.clients.values()) c.close();
    this.clients.clear();
  }

  private client<C extends Client>(key: string, ctor: new (address: string, creds: ReturnType<typeof credentials.createInsecure>) => C): C {
    let c = this.clients.get(key) as C | undefined;
    if (!c) {
      c = new ctor(this.target.address, credentials.createInsecure());
      this.clients.set(key, c);
    }
    return c;
  }
}
