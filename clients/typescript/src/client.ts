import { OPERATIONS, pathOf, type OperationId } from './operations';
import { CursorList } from './pagination';
import { Transport, type ClientOptions } from './transport';
import type {
  Balance,
  CreateInvoice,
  CreateRefund,
  CreateWithdrawal,
  EventListQuery,
  EventPage,
  Invoice,
  InvoiceListItem,
  InvoiceListQuery,
  InvoicePage,
  LoggedEvent,
  NetworkList,
  OpenApiDocument,
  RedeliveredEvent,
  SetInvoiceNetwork,
  WebhookEvent,
  WebhookTestResult,
  Refund,
  RefundList,
  Withdrawal,
  WithdrawalListQuery,
  WithdrawalPage,
} from './types';
import { verifyWebhook, type StandardWebhookOptions, type WebhookHeaders } from './webhooks';

export interface ChainpayClientOptions extends ClientOptions {
  /** `whsec_…`: lets `client.webhooks.verify` check the Standard Webhooks headers too. */
  readonly webhookSecret?: string;
}

/**
 * The chainpay merchant API. One method per operation of the OpenAPI document, named by its
 * operationId (`createInvoice`, `listInvoices`, …), plus grouped helpers that iterate lists
 * (`client.invoices.list({ status: 'paid' })`) and verify webhooks. Every method signs its request;
 * a non-2xx answer throws ChainpayError.
 */
export class ChainpayClient {
  private readonly transport: Transport;

  constructor(private readonly options: ChainpayClientOptions) {
    this.transport = new Transport(options);
  }

  // --- One method per operationId ---

  /** The OpenAPI document of the API (unsigned). */
  getOpenApi(): Promise<OpenApiDocument> {
    return this.call('getOpenApi', {}, { signed: false }) as Promise<OpenApiDocument>;
  }

  /** The active networks with their fees and minimums (unsigned). */
  listNetworks(): Promise<NetworkList> {
    return this.call('listNetworks', {}, { signed: false }) as Promise<NetworkList>;
  }

  /** A new invoice (or, for an `order_id` used before, that invoice: retries are safe). */
  createInvoice(body: CreateInvoice): Promise<Invoice> {
    return this.call('createInvoice', {}, { body }) as Promise<Invoice>;
  }

  /** One page of invoices, newest first. `client.invoices.list` iterates them all. */
  listInvoices(query: InvoiceListQuery & { cursor?: string } = {}): Promise<InvoicePage> {
    return this.call('listInvoices', {}, { query }) as Promise<InvoicePage>;
  }

  getInvoice(uuid: string): Promise<Invoice> {
    return this.call('getInvoice', { uuid }) as Promise<Invoice>;
  }

  setInvoiceNetwork(uuid: string, body: SetInvoiceNetwork): Promise<Invoice> {
    return this.call('setInvoiceNetwork', { uuid }, { body }) as Promise<Invoice>;
  }

  cancelInvoice(uuid: string): Promise<Invoice> {
    return this.call('cancelInvoice', { uuid }, { body: {} }) as Promise<Invoice>;
  }

  /** A new withdrawal (or, for a `reference` used before, that withdrawal: retries are safe). */
  createWithdrawal(body: CreateWithdrawal): Promise<Withdrawal> {
    return this.call('createWithdrawal', {}, { body }) as Promise<Withdrawal>;
  }

  /** One page of withdrawals, newest first. `client.withdrawals.list` iterates them all. */
  listWithdrawals(query: WithdrawalListQuery & { cursor?: string } = {}): Promise<WithdrawalPage> {
    return this.call('listWithdrawals', {}, { query }) as Promise<WithdrawalPage>;
  }

  getWithdrawal(uuid: string): Promise<Withdrawal> {
    return this.call('getWithdrawal', { uuid }) as Promise<Withdrawal>;
  }

  /** A refund of the invoice to the buyer (or, for a `reference` used before, that refund). Beyond the spec. */
  createRefund(invoiceUuid: string, body: CreateRefund): Promise<Refund> {
    return this.call('createRefund', { uuid: invoiceUuid }, { body }) as Promise<Refund>;
  }

  /** The invoice's refunds, oldest first. */
  listInvoiceRefunds(invoiceUuid: string): Promise<RefundList> {
    return this.call('listInvoiceRefunds', { uuid: invoiceUuid }) as Promise<RefundList>;
  }

  getRefund(uuid: string): Promise<Refund> {
    return this.call('getRefund', { uuid }) as Promise<Refund>;
  }

  /** Withdraws a refund still in review (409 refund_not_cancelable once approved). */
  cancelRefund(uuid: string): Promise<Refund> {
    return this.call('cancelRefund', { uuid }, { body: {} }) as Promise<Refund>;
  }

  getBalance(): Promise<Balance> {
    return this.call('getBalance') as Promise<Balance>;
  }

  /** One page of the event log, oldest first, after `after`. `client.events.list` iterates it. */
  listEvents(query: EventListQuery & { after?: string } = {}): Promise<EventPage> {
    return this.call('listEvents', {}, { query }) as Promise<EventPage>;
  }

  /** Sends an event to the webhook URL again. */
  redeliverEvent(id: string): Promise<RedeliveredEvent> {
    return this.call('redeliverEvent', { id }, { body: {} }) as Promise<RedeliveredEvent>;
  }

  /** Sends a test event to the merchant's webhook URL and reports how the endpoint answered. */
  testWebhook(): Promise<WebhookTestResult> {
    return this.call('testWebhook', {}, { body: {} }) as Promise<WebhookTestResult>;
  }

  // --- Grouped helpers ---

  readonly invoices = {
    create: (body: CreateInvoice): Promise<Invoice> => this.createInvoice(body),
    get: (uuid: string): Promise<Invoice> => this.getInvoice(uuid),
    setNetwork: (uuid: string, network: string): Promise<Invoice> => this.setInvoiceNetwork(uuid, { network }),
    cancel: (uuid: string): Promise<Invoice> => this.cancelInvoice(uuid),
    /** Every invoice matching `query`, newest first, page by page (`limit` is the page size); without `qr_svg` (`get` has it). */
    list: (query: InvoiceListQuery = {}, cursor?: string): CursorList<InvoiceListItem> =>
      new CursorList(async (at) => {
        const page = await this.listInvoices({ ...query, cursor: at });
        return { items: page.invoices, cursor: page.next_cursor, more: page.next_cursor !== null };
      }, cursor),
  };

  readonly withdrawals = {
    create: (body: CreateWithdrawal): Promise<Withdrawal> => this.createWithdrawal(body),
    get: (uuid: string): Promise<Withdrawal> => this.getWithdrawal(uuid),
    /** Every withdrawal matching `query`, newest first, page by page. */
    list: (query: WithdrawalListQuery = {}, cursor?: string): CursorList<Withdrawal> =>
      new CursorList(async (at) => {
        const page = await this.listWithdrawals({ ...query, cursor: at });
        return { items: page.withdrawals, cursor: page.next_cursor, more: page.next_cursor !== null };
      }, cursor),
  };

  readonly events = {
    /**
     * The event log from `after` (a cursor kept from an earlier run; from the start without one)
     * up to now. Keep the list's `cursor` when the loop ends and pass it next time to go on.
     */
    list: (options: EventListQuery & { after?: string } = {}): CursorList<LoggedEvent> => {
      const { after, ...query } = options;
      return new CursorList(async (at) => {
        const page = await this.listEvents({ ...query, after: at });
        return { items: page.events, cursor: page.next_cursor, more: page.has_more };
      }, after);
    },
    redeliver: (id: string): Promise<RedeliveredEvent> => this.redeliverEvent(id),
  };

  readonly webhooks = {
    test: (): Promise<WebhookTestResult> => this.testWebhook(),
    /**
     * Verifies a delivery with the client's secrets (the API secret, and the webhook secret when
     * given) and returns the event. Pass the raw body bytes.
     */
    verify: (body: string | Uint8Array, headers: WebhookHeaders, options: StandardWebhookOptions = {}): WebhookEvent =>
      verifyWebhook({ ...options, body, headers, apiSecret: this.options.apiSecret, webhookSecret: this.options.webhookSecret }),
  };

  private call(operation: OperationId, params: Record<string, string> = {}, extra: { query?: object; body?: unknown; signed?: boolean } = {}): Promise<unknown> {
    return this.transport.send({ method: OPERATIONS[operation].method, path: pathOf(operation, params), ...extra });
  }
}
