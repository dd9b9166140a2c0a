import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { Invoice, InvoiceServiceService } from '../../src/grpc/generated/chainpay/v1/invoices';
import { MerchantServiceService } from '../../src/grpc/generated/chainpay/v1/merchants';
import { Network, NetworkServiceService } from '../../src/grpc/generated/chainpay/v1/networks';
import { Withdrawal, WithdrawalServiceService } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { Relay } from '../../src/grpc/relay';
import { createLogger } from '../../src/observability/logger';

/**
 * A test double of the daemon: a real grpc-js server on an ephemeral port serving the generated
 * service definitions (plus grpc.health.v1), answering with canned responders and recording every call.
 * Like the daemon, it serves them through RelayService too (the daemon's own Relay), unless
 * `{ relay: false }` makes it an older daemon without it.
 */
export interface RecordedCall {
  readonly method: string;
  readonly request: any;
  readonly metadata: grpc.Metadata;
  /** Whether the call came over RelayService (the relay's calls report the peer 'relay'). */
  readonly relayed: boolean;
  /** The call object the handler got (its deadline, `cancelled` and 'cancelled' event). */
  readonly call: grpc.ServerUnaryCall<unknown, unknown>;
  /** How many 'cancelled' events the call emitted so far (listened to from its start). */
  cancelledEvents(): number;
}

export type Responder = (request: any, metadata: grpc.Metadata) => unknown;

/** Thrown by a responder: answered as that gRPC status, with trailing metadata. */
export class StatusError extends Error {
  constructor(
    readonly code: grpc.status,
    readonly details: string,
    readonly trailers: Record<string, string> = {},
  ) {
    super(details);
  }
}

const SERVICES = [InvoiceServiceService, NetworkServiceService, WithdrawalServiceService, MerchantServiceService];

export class FakeDaemon {
  readonly calls: RecordedCall[] = [];
  readonly health = new HealthImplementation({ '': 'SERVING' });
  readonly #responders = new Map<string, Responder>();
  readonly #server = new grpc.Server();
  readonly #relay = new Relay(createLogger('silent', 'fake-daemon'));
  address = '';
  constructor(private readonly options: { relay?: boolean } = {}) {}

  /** `method` is the RPC name, e.g. 'CreateInvoice'. */
  on(method: string, responder: Responder): this {
    this.#responders.set(method, responder);
    return this;
  }

  /** On an ephemeral port unless `port` is given (a daemon coming back where it was). */
  async start(port = 0): Promise<this> {
    const relay = this.#relay;
    for (const service of SERVICES) {
      const impl: grpc.UntypedServiceImplementation = {};
      for (const [key, def] of Object.entries(service)) {
        const name = def.path.split('/').pop()!;
        impl[key] = def.responseStream
          ? (call: grpc.ServerWritableStream<unknown, unknown>) => call.end()
          : (call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => this.#answer(name, call, cb);
      }
      this.#server.addService(service, impl);
      relay.register(service, impl);
    }
    if (this.options.relay !== false) relay.addTo(this.#server);
    this.health.addToServer(this.#server);
    const bound = await new Promise<number>((resolve, reject) => this.#server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))));
    this.address = `127.0.0.1:${bound}`;
    return this;
  }

  /** What the daemon's shutdown does first (src/grpc/server.ts): relay streams end once idle. */
  drainRelay(): void {
    this.#relay.drain();
  }

  stop(): void {
    this.#server.forceShutdown();
  }

  /** The signed body as the daemon would rebuild it: all `x-signed-body-bin` values, in order. */
  static signedBody(metadata: grpc.Metadata): Buffer {
    return Buffer.concat(metadata.get('x-signed-body-bin') as Buffer[]);
  }

  #answer(name: string, call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>): void {
    let cancelledEvents = 0;
    call.on('cancelled', () => cancelledEvents++);
    this.calls.push({ method: name, request: call.request, metadata: call.metadata, relayed: call.getPeer() === 'relay', call, cancelledEvents: () => cancelledEvents });
    const responder = this.#responders.get(name);
    if (responder === undefined) return cb({ code: grpc.status.UNIMPLEMENTED, details: `no responder for ${name}` });
    Promise.resolve()
      .then(() => responder(call.request, call.metadata))
      .then(
        (value) => cb(null, value),
        (err: unknown) => {
          if (!(err instanceof StatusError)) return cb({ code: grpc.status.INTERNAL, details: String(err) });
          const metadata = new grpc.Metadata();
          for (const [k, v] of Object.entries(err.trailers)) metadata.set(k, v);
          cb({ code: err.code, details: err.details, metadata });
        },
      );
  }
}

/** A complete invoice (every field set the way the daemon would for a network-less pending invoice). */
export function invoiceFixture(overrides: Partial<Invoice> = {}): Invoice {
  return Invoice.fromPartial({
    uuid: '0b9f5a52-5d3c-4c43-9a43-3f0c7f4b8a11',
    status: 'pending',
    amount: '100',
    currency: 'USDT',
    platform_fee: '1',
    network_fee: '0',
    pay_amount: '101',
    merchant_net: '100',
    fee_payer: 'buyer',
    checkout_url: 'http://127.0.0.1:8080/pay/0b9f5a52-5d3c-4c43-9a43-3f0c7f4b8a11',
    qr_svg: '<svg xmlns="http://www.w3.org/2000/svg"></svg>',
    received_amount: '0',
    confirmations: 0,
    required_confirmations: 0,
    metadata_json: '',
    expires_at: '2026-01-01T01:00:00.000Z',
    created_at: '2026-01-01T00:00:00.000Z',
    merchant_id: 'merchant-1',
    webhook_url: 'https://merchant.example/hook',
    ...overrides,
  });
}

export function withdrawalFixture(overrides: Partial<Withdrawal> = {}): Withdrawal {
  return Withdrawal.fromPartial({
    uuid: '5e0c1f5e-2a8b-4a57-b7a4-2a4b8b9c7d10',
    status: 'processing',
    network: 'TRC20',
    address: 'TXYZabc',
    amount: '50',
    network_fee: '1',
    net_payout: '49',
    created_at: '2026-01-01T00:00:00.000Z',
    merchant_id: 'merchant-1',
    confirmations: 3,
    ...overrides,
  });
}

export function networkFixture(overrides: Partial<Network> = {}): Network {
  return Network.fromPartial({
    code: 'TRC20',
    name: 'Tron (TRC20)',
    buyer_network_fee: '1',
    withdrawal_fee: '1.5',
    min_invoice: '1',
    min_withdrawal: '5',
    required_confirmations: 19,
    deposit_mode: 'address_pool',
    token_contract: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
    token_decimals: 6,
    active: true,
    chain_mode: 'devnet',
    ...overrides,
  });
}
