import { credentials as grpcCredentials, type ChannelCredentials, type ClientReadableStream, type Metadata } from '@grpc/grpc-js';
import { CheckoutServiceClient, type CheckoutView } from '../../src/grpc/generated/chainpay/v1/invoices';
import { CHANNEL_OPTIONS, DEFAULT_DEADLINE_MS } from '../daemon-client';

/**
 * CheckoutService: unauthenticated and scoped to one invoice uuid by the daemon. Its own client
 * object because the page needs a server stream; grpc-js shares the underlying connection with the
 * gateway's other client (same target, same options).
 */
export class CheckoutDaemon {
  readonly #client: CheckoutServiceClient;
  readonly #deadlineMs: number;

  constructor(address: string, opts: { credentials?: ChannelCredentials; deadlineMs?: number } = {}) {
    this.#client = new CheckoutServiceClient(address, opts.credentials ?? grpcCredentials.createInsecure(), CHANNEL_OPTIONS);
    this.#deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
  }

  get(uuid: string, metadata: Metadata): Promise<CheckoutView> {
    return new Promise((resolve, reject) => {
      this.#client.getCheckout({ uuid }, metadata, { deadline: this.#deadline() }, (err, view) => (err ? reject(err) : resolve(view)));
    });
  }

  choose(uuid: string, network: string, metadata: Metadata): Promise<CheckoutView> {
    return new Promise((resolve, reject) => {
      this.#client.chooseNetwork({ uuid, network }, metadata, { deadline: this.#deadline() }, (err, view) => (err ? reject(err) : resolve(view)));
    });
  }

  /** The current view, then one per change, until the invoice is closed; cancel() to stop early. */
  watch(uuid: string, metadata: Metadata): ClientReadableStream<CheckoutView> {
    return this.#client.watchCheckout({ uuid }, metadata);
  }

  close(): void {
    this.#client.close();
  }

  #deadline(): number {
    return Date.now() + this.#deadlineMs;
  }
}
