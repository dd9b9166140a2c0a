import type { components, operations } from './generated/openapi';

/**
 * The API's types, taken from the OpenAPI document by operation and schema name
 * (src/generated/openapi.ts, written by `npm run client:gen` from gateway/openapi/). Amounts are
 * decimal strings there, never numbers.
 */
type Operations = operations;
type Schemas = components['schemas'];

type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body of an operation's success answer (200, 201 or 202). */
export type ResponseOf<Op> = Op extends { responses: infer R }
  ? R extends { 200: infer A }
    ? JsonContent<A>
    : R extends { 201: infer B }
      ? JsonContent<B>
      : R extends { 202: infer C }
        ? JsonContent<C>
        : never
  : never;
/** An operation's JSON request body. */
export type BodyOf<Op> = Op extends { requestBody?: infer B } ? JsonContent<NonNullable<B>> : never;
/** An operation's query parameters. */
export type QueryOf<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type Network = Schemas['Network'];
export type NetworkList = ResponseOf<Operations['listNetworks']>;
export type Invoice = Schemas['Invoice'];
export type Payment = Schemas['Payment'];
export type InvoiceStatus = Invoice['status'];
/** An invoice in a list: the Invoice without `qr_svg` (getInvoice has it). */
export type InvoiceListItem = Schemas['InvoiceListItem'];
export type InvoicePage = ResponseOf<Operations['listInvoices']>;
export type CreateInvoice = BodyOf<Operations['createInvoice']>;
export type SetInvoiceNetwork = BodyOf<Operations['setInvoiceNetwork']>;
export type InvoiceListQuery = Omit<QueryOf<Operations['listInvoices']>, 'cursor'>;
export type Withdrawal = Schemas['Withdrawal'];
export type WithdrawalStatus = Withdrawal['status'];
export type WithdrawalPage = ResponseOf<Operations['listWithdrawals']>;
export type CreateWithdrawal = BodyOf<Operations['createWithdrawal']>;
export type WithdrawalListQuery = Omit<QueryOf<Operations['listWithdrawals']>, 'cursor'>;
/** Beyond the spec (issue 49): a refund of an invoice to the buyer. */
export type Refund = Schemas['Refund'];
export type RefundStatus = Refund['status'];
export type CreateRefund = BodyOf<Operations['createRefund']>;
export type RefundList = ResponseOf<Operations['listInvoiceRefunds']>;
export type RefundEvent = Schemas['RefundEvent'];
export type Balance = ResponseOf<Operations['getBalance']>;
export type ErrorBody = Schemas['Error'];
/** The OpenAPI document itself (GET /v1/openapi.json). */
export type OpenApiDocument = Record<string, unknown>;

export type InvoiceEvent = Schemas['InvoiceEvent'];
export type WithdrawalEvent = Schemas['WithdrawalEvent'];
/** The event POST /v1/webhooks/test sends: never in the event log, never retried. */
export type PingEvent = Schemas['PingEvent'];
/** An event of the log (GET /v1/events): an invoice, withdrawal or refund event, the webhook body as stored. */
export type LoggedEvent = EventPage['events'][number];
/** A webhook body: what is POSTed to your endpoint (a logged event, or a test ping). */
export type WebhookEvent = LoggedEvent | PingEvent;
export type EventPage = ResponseOf<Operations['listEvents']>;
export type EventListQuery = Omit<QueryOf<Operations['listEvents']>, 'after'>;
export type RedeliveredEvent = ResponseOf<Operations['redeliverEvent']>;
export type WebhookTestResult = ResponseOf<Operations['testWebhook']>;
