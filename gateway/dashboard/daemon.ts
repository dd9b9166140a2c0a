import { credentials as grpcCredentials, Metadata, type ChannelCredentials, type ServiceError } from '@grpc/grpc-js';
import { DashboardServiceClient } from '../../src/grpc/generated/chainpay/v1/dashboard';
import { InvoiceServiceClient } from '../../src/grpc/generated/chainpay/v1/invoices';
import { MerchantServiceClient } from '../../src/grpc/generated/chainpay/v1/merchants';
import { WithdrawalServiceClient } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { CHANNEL_OPTIONS, DEFAULT_DEADLINE_MS } from '../daemon-client';

type Callback<Res> = (err: ServiceError | null, res: Res) => void;
type Unary<Req, Res> = (req: Req, md: Metadata, opts: { deadline: number }, cb: Callback<Res>) => unknown;

/**
 * The daemon's services as the dashboard calls them: DashboardService for the session and its own
 * reads, and the REST API's services (invoices, balance, withdrawals) with the session as the
 * credential, so the daemon applies the same rules as for a signed call. grpc-js shares one
 * connection with the gateway's other clients.
 */
export class DashboardDaemon {
  readonly dashboard: DashboardServiceClient;
  readonly invoices: InvoiceServiceClient;
  readonly merchants: MerchantServiceClient;
  readonly withdrawals: WithdrawalServiceClient;
  readonly #deadlineMs: number;

  constructor(address: string, opts: { credentials?: ChannelCredentials; deadlineMs?: number } = {}) {
    const creds = opts.credentials ?? grpcCredentials.createInsecure();
    this.dashboard = new DashboardServiceClient(address, creds, CHANNEL_OPTIONS);
    this.invoices = new InvoiceServiceClient(address, creds, CHANNEL_OPTIONS);
    this.merchants = new MerchantServiceClient(address, creds, CHANNEL_OPTIONS);
    this.withdrawals = new WithdrawalServiceClient(address, creds, CHANNEL_OPTIONS);
    this.#deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
  }

  /** One unary call, e.g. `call(d.dashboard, d.dashboard.getSession, {}, md)`. */
  call<C, Req, Res>(client: C, method: Unary<Req, Res>, req: Req, md: Metadata): Promise<Res> {
    return new Promise((resolve, reject) => {
      method.call(client, req, md, { deadline: Date.now() + this.#deadlineMs }, (err, res) => (err ? reject(err) : resolve(res)));
    });
  }

  close(): void {
    for (const c of [this.dashboard, this.invoices, this.merchants, this.withdrawals]) c.close();
  }
}

/** Request metadata: the gateway's request id, and the session token when there is one. */
export function dashboardMetadata(requestId: string, sessionToken?: string): Metadata {
  const md = new Metadata();
  md.set('x-request-id', requestId);
  if (sessionToken) md.set('x-dashboard-session', sessionToken);
  return md;
}
