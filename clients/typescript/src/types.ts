import type { components, operations } from './generated/openapi';

/**
 * The API's types, taken from the OpenAPI document by operation and schema name
 * (src/generated/openapi.ts, written by `npm run client:gen` from gateway/openapi/). Amounts are
 * decimal strings there, never numbers. An operation or schema the document does not describe yet
 * falls back to the hand-written shape below; once the document has it, its generated type wins.
 */
type Operations = operations;
type Schemas = components['schemas'];

/** The generated operation `N`, or `Fallback` while the document has none of that name. */
type OperationOr<N extends string, Fallback> = N extends keyof Operations ? Operations[N] : Fallback;

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
export type InvoicePage = ResponseOf<Operations['listInvoices']>;
export type CreateInvoice = BodyOf<Operations['createInvoice']>;
export type SetInvoiceNetwork = BodyOf<Operations['setInvoiceNetwork']>;
export type InvoiceListQuery = Omit<QueryOf<Operations['listInvoices']>, 'cursor'>;
export type Withdrawal = Schemas['Withdrawal'];
export type WithdrawalStatus = Withdrawal['status'];
export type WithdrawalPage = ResponseOf<Operations['listWithdrawals']>;
export type CreateWithdrawal = BodyOf<Operations['createWithdrawal']>;
export type WithdrawalListQuery = Omit<QueryOf<Operations['listWithdrawals']>, 'cursor'>;
export type Balance = ResponseOf<Operations['getBalance']>;
export type ErrorBody = Schemas['Error'];
/** The OpenAPI document itself (GET /v1/openapi.json). */
export type OpenApiDocument = Record<string, unknown>;

export type InvoiceEvent = Schemas['InvoiceEvent'];
export type WithdrawalEvent = Schemas['WithdrawalEvent'];
/** A webhook body: what is POSTed to your endpoint and what the event log lists. */
export type WebhookEvent = InvoiceEvent | WithdrawalEvent;

// The event log and webhook test (GET /v1/events, POST /v1/events/{id}/redeliver,
// POST /v1/webhooks/test): hand-written until the document describes them.
interface EventPageShape {
  events: WebhookEvent[];
  /** Where the next page starts; keep it to resume later, even when has_more is false. */
  next_cursor: string;
  has_more: boolean;
}
interface WebhookTestShape {
  delivered: boolean;
  url: string | null;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  event: { id: string; type: string; created_at: string; data: Record<string, unknown> };
}
type Json<B> = { content: { 'application/json': B } };
type ListEventsFallback = { parameters: { query?: { after?: string; limit?: number } }; requestBody?: never; responses: { 200: Json<EventPageShape> } };
type RedeliverEventFallback = { parameters: { path: { id: string } }; requestBody: Json<Record<string, never>>; responses: { 202: Json<Record<string, unknown>> } };
type TestWebhookFallback = { parameters: { query?: never }; requestBody: Json<Record<string, never>>; responses: { 200: Json<WebhookTestShape> } };

export type EventPage = ResponseOf<OperationOr<'listEvents', ListEventsFallback>>;
export type EventListQuery = Omit<QueryOf<OperationOr<'listEvents', ListEventsFallback>>, 'after'>;
export type RedeliverResult = ResponseOf<OperationOr<'redeliverEvent', RedeliverEventFallback>>;
export type WebhookTestResult = ResponseOf<OperationOr<'testWebhook', TestWebhookFallback>>;
