import type { Metadata } from '@grpc/grpc-js';
import { EventServiceService } from '../src/grpc/generated/chainpay/v1/events';
import { CreateInvoiceRequest, InvoiceServiceService, type GetInvoiceRequest } from '../src/grpc/generated/chainpay/v1/invoices';
import { MerchantServiceService } from '../src/grpc/generated/chainpay/v1/merchants';
import { NetworkServiceService } from '../src/grpc/generated/chainpay/v1/networks';
import { CreateWithdrawalRequest, WithdrawalServiceService } from '../src/grpc/generated/chainpay/v1/withdrawals';
import { RefundServiceService } from '../src/grpc/generated/chainpay/v1/refunds';
import type { CallCancellation } from './call-cancellation';
import type { DaemonClient, UnaryMethod } from './daemon-client';
import { InvoiceBodies } from './invoice-bodies';
import { OPENAPI_DOCUMENT } from './openapi/document';
import { encodeBalance, encodeInvoice, encodeNetwork, encodeRefund, encodeWithdrawal, EncodingError } from './rest-encoding';
import { JsonBytes } from './respond';

/**
 * One handler per `/v1` route, each exactly one gRPC call. Signed calls carry only path parameters
 * in the message: the daemon reads the body from the signed bytes (`x-signed-body-bin`), so the
 * gateway never interprets a field of it.
 */
export interface HandlerContext {
  readonly params: Readonly<Record<string, string>>;
  readonly daemon: DaemonClient;
  /** x-request-id, plus the signed headers and body on signed routes. */
  readonly metadata: Metadata;
  /** The request's query string without "?" ("" when none): passed through, the daemon validates it. */
  readonly query: string;
  /** Fires when the HTTP client goes away before its answer: the daemon call is cancelled. */
  readonly cancellation: CallCancellation;
}

export interface HandlerResult {
  readonly status: number;
  readonly body: unknown;
}

export type Handler = (ctx: HandlerContext) => Promise<HandlerResult>;

const param = (ctx: HandlerContext, name: string): string => ctx.params[name] ?? '';

function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new EncodingError(`daemon response has no ${what}`);
  return value;
}

export const listNetworks: Handler = async ({ daemon, metadata, cancellation }) => {
  const res = await daemon.call(NetworkServiceService.listNetworks, { include_inactive: false }, metadata, cancellation);
  // `livemode` beyond the spec's one field: false on a devnet daemon (every network simulated).
  return { status: 200, body: { networks: res.networks.map(encodeNetwork), livemode: res.livemode } };
};

export const createInvoice: Handler = async ({ daemon, metadata, cancellation }) => {
  const res = await daemon.call(InvoiceServiceService.createInvoice, CreateInvoiceRequest.create(), metadata, cancellation);
  return { status: res.created ? 201 : 200, body: encodeInvoice(present(res.invoice, 'invoice')) };
};

/** GetInvoice answered with the response bytes as they came (InvoiceBodies decodes them only when they changed). */
const getInvoiceBytes: UnaryMethod<GetInvoiceRequest, Buffer> = { ...InvoiceServiceService.getInvoice, responseDeserialize: (bytes) => bytes };
const invoiceBodies = new InvoiceBodies();

export const getInvoice: Handler = async (ctx) => {
  const uuid = param(ctx, 'uuid');
  const bytes = await ctx.daemon.call(getInvoiceBytes, { uuid }, ctx.metadata, ctx.cancellation);
  return { status: 200, body: invoiceBodies.body(uuid, bytes) };
};

export const setInvoiceNetwork: Handler = async (ctx) => {
  const request = { uuid: param(ctx, 'uuid'), network: '' };
  const invoice = await ctx.daemon.call(InvoiceServiceService.setInvoiceNetwork, request, ctx.metadata, ctx.cancellation);
  return { status: 200, body: encodeInvoice(invoice) };
};

export const cancelInvoice: Handler = async (ctx) => {
  const invoice = await ctx.daemon.call(InvoiceServiceService.cancelInvoice, { uuid: param(ctx, 'uuid') }, ctx.metadata, ctx.cancellation);
  return { status: 200, body: encodeInvoice(invoice) };
};

/** GET /v1/invoices: one page, newest first (the daemon parses and validates the query). */
export const listInvoices: Handler = async ({ daemon, metadata, cancellation, query }) => {
  const page = await daemon.call(InvoiceServiceService.pageInvoices, { query }, metadata, cancellation);
  // A list leaves qr_svg out (the daemon does not draw it for a page): GET /v1/invoices/{uuid} has it.
  return {
    status: 200,
    body: listBody(
      'invoices',
      page.invoices.map((i) => encodeInvoice(i, { list: true })),
      page.next_cursor,
    ),
  };
};

/** POST /v1/invoices/{uuid}/refunds: the signed body is judged by the daemon; 201 created, 200 a known reference. */
export const createRefund: Handler = async (ctx) => {
  const res = await ctx.daemon.call(RefundServiceService.createRefund, { invoice_uuid: param(ctx, 'uuid') }, ctx.metadata, ctx.cancellation);
  return { status: res.created ? 201 : 200, body: encodeRefund(present(res.refund, 'refund')) };
};

/** GET /v1/invoices/{uuid}/refunds: every refund of the invoice, oldest first. */
export const listInvoiceRefunds: Handler = async (ctx) => {
  const res = await ctx.daemon.call(RefundServiceService.listInvoiceRefunds, { invoice_uuid: param(ctx, 'uuid') }, ctx.metadata, ctx.cancellation);
  return { status: 200, body: new JsonBytes(Buffer.from(`{"refunds":[${res.refunds.map((r) => encodeRefund(r).bytes.toString('utf8')).join(',')}]}`, 'utf8')) };
};

export const getRefund: Handler = async (ctx) => {
  const refund = await ctx.daemon.call(RefundServiceService.getRefund, { uuid: param(ctx, 'uuid') }, ctx.metadata, ctx.cancellation);
  return { status: 200, body: encodeRefund(refund) };
};

/** POST /v1/refunds/{uuid}/cancel: a refund in review is withdrawn (its hold released). */
export const cancelRefund: Handler = async (ctx) => {
  const refund = await ctx.daemon.call(RefundServiceService.cancelRefund, { uuid: param(ctx, 'uuid') }, ctx.metadata, ctx.cancellation);
  return { status: 200, body: encodeRefund(refund) };
};

/** GET /v1/withdrawals: one page, newest first. */
export const listWithdrawals: Handler = async ({ daemon, metadata, cancellation, query }) => {
  const page = await daemon.call(WithdrawalServiceService.pageWithdrawals, { query }, metadata, cancellation);
  return { status: 200, body: listBody('withdrawals', page.withdrawals.map(encodeWithdrawal), page.next_cursor) };
};

export const createWithdrawal: Handler = async ({ daemon, metadata, cancellation }) => {
  const res = await daemon.call(WithdrawalServiceService.createWithdrawal, CreateWithdrawalRequest.create(), metadata, cancellation);
  return { status: res.created ? 201 : 200, body: encodeWithdrawal(present(res.withdrawal, 'withdrawal')) };
};

export const getWithdrawal: Handler = async (ctx) => {
  const withdrawal = await ctx.daemon.call(WithdrawalServiceService.getWithdrawal, { uuid: param(ctx, 'uuid') }, ctx.metadata, ctx.cancellation);
  return { status: 200, body: encodeWithdrawal(withdrawal) };
};

/** The OpenAPI 3.1 document of this surface (unsigned; no daemon call). */
export const getOpenApi: Handler = async () => ({ status: 200, body: OPENAPI_DOCUMENT });

export const getBalance: Handler = async ({ daemon, metadata, cancellation }) => {
  const balance = await daemon.call(MerchantServiceService.getBalance, { merchant_id: '' }, metadata, cancellation);
  return { status: 200, body: encodeBalance(balance) };
};

/**
 * GET /v1/events: the merchant's event log (the daemon parses the query). Each event is the
 * webhook body as stored, spliced in as its bytes: never parsed and re-serialized here.
 */
export const listEvents: Handler = async ({ daemon, metadata, cancellation, query }) => {
  const page = await daemon.call(EventServiceService.listEvents, { query }, metadata, cancellation);
  const parts = [
    Buffer.from('{"events":['),
    ...page.events.flatMap((e, i) => (i === 0 ? [Buffer.from(e.body_json, 'utf8')] : [Buffer.from(','), Buffer.from(e.body_json, 'utf8')])),
    Buffer.from(`],"next_cursor":${JSON.stringify(page.next_cursor)},"has_more":${page.has_more}}`),
  ];
  return { status: 200, body: new JsonBytes(Buffer.concat(parts)) };
};

/** POST /v1/events/{id}/redeliver: 202, the event is queued (delivery happens after the answer). */
export const redeliverEvent: Handler = async (ctx) => {
  const res = await ctx.daemon.call(EventServiceService.redeliverEvent, { id: param(ctx, 'id') }, ctx.metadata, ctx.cancellation);
  return { status: 202, body: { id: res.id, type: res.type, status: res.status } };
};

/** POST /v1/webhooks/test: the ping's outcome; `event` is the body sent, spliced as its bytes. */
export const testWebhook: Handler = async ({ daemon, metadata, cancellation }) => {
  const res = await daemon.call(EventServiceService.testWebhook, {}, metadata, cancellation);
  const head = JSON.stringify({ delivered: res.delivered, url: res.url, status_code: res.status_code ?? null, latency_ms: res.latency_ms, error: res.error ?? null });
  return { status: 200, body: new JsonBytes(Buffer.concat([Buffer.from(`${head.slice(0, -1)},"event":`), Buffer.from(res.event_json, 'utf8'), Buffer.from('}')])) };
};

/** A page of a list: its items are JSON text already (the one REST definition), so the page is joined as text. */
function listBody(key: 'invoices' | 'withdrawals', items: readonly JsonBytes[], nextCursor: string | undefined): JsonBytes {
  const parts = [
    Buffer.from(`{"${key}":[`),
    ...items.flatMap((item, i) => (i === 0 ? [item.bytes] : [Buffer.from(','), item.bytes])),
    Buffer.from(`],"next_cursor":${JSON.stringify(nextCursor ?? null)}}`),
  ];
  return new JsonBytes(Buffer.concat(parts));
}
