import type { ServerWritableStream } from '@grpc/grpc-js';
import { MalformedRequestError } from '../../domain/errors';
import { parseCreateInvoice, parseNetwork, parseSetInvoiceNetwork } from '../../domain/invoice-request';
import { InvoiceServiceService, type InvoiceServiceServer, type Invoice as InvoiceMessage, type InvoiceUpdate as InvoiceUpdateMessage } from '../generated/chainpay/v1/invoices';
import { Invoice, InvoicePayment } from '../../store/entities';
import { toInvoiceMessage } from '../views/invoice-message';
import { streamInvoiceChanges } from './invoice-stream';
import { defined, requestBody } from '../request-body';
import { serverStream, unary } from '../handler';
import type { ServiceContext } from '../context';
import { serializeOnce } from '../serialize-once';
import { stopIfCancelled } from '../call-cancelled';
import { BodyFields } from '../../domain/request-fields';
import { INVOICE_STATUSES } from '../../domain/invoice-statuses';
import { parseListQuery } from '../../domain/list-query';
import { keysetPage } from '../../store/repos/keyset-page';

/** POST /v1/invoices/{uuid}/cancel takes an empty JSON object. */
const CANCEL_INVOICE_FIELDS = new BodyFields([]);

type LoadedRows = { readonly row: Invoice; readonly payments: InvoicePayment[] };

export function invoiceService(ctx: ServiceContext): { definition: typeof InvoiceServiceService; implementation: InvoiceServiceServer } {
  const activeNetworks = () => ctx.networks.list(() => ctx.orm.em.fork());
  // An open invoice's loaded rows are one shared object between its commits (OpenInvoiceReads):
  // so is its message (reads that come while it is being built share the promise), and
  // GetInvoice encodes that message once (serializeOnce below).
  const messages = new WeakMap<LoadedRows, Promise<InvoiceMessage>>();
  const message = (loaded: LoadedRows): Promise<InvoiceMessage> => {
    const kept = messages.get(loaded);
    if (kept !== undefined) return kept;
    const built = toInvoiceMessage(loaded.row, loaded.payments, ctx);
    messages.set(loaded, built);
    // A failed build is not kept: the next read builds it again.
    built.catch(() => {
      if (messages.get(loaded) === built) messages.delete(loaded);
    });
    return built;
  };

  const implementation: InvoiceServiceServer = {
    createInvoice: unary(ctx.logger, 'CreateInvoice', async (call, log) => {
      const caller = await ctx.auth.merchantRequired(call.metadata);
      const r = call.request;
      const body = requestBody(caller, () => {
        let metadata: unknown;
        if (r.metadata_json !== undefined) {
          try {
            metadata = JSON.parse(r.metadata_json);
          } catch {
            throw new MalformedRequestError('metadata_json is not valid JSON', 'metadata');
          }
        }
        return defined({
          amount: r.amount === '' ? undefined : r.amount,
          order_id: r.order_id,
          title: r.title,
          network: r.network,
          fee_payer: r.fee_payer,
          lifetime_minutes: r.lifetime_minutes,
          webhook_url: r.webhook_url,
          return_url: r.return_url,
          cancel_url: r.cancel_url,
          metadata,
        });
      });
      const active = await activeNetworks();
      const input = parseCreateInvoice(body, active);
      if (input.webhookUrl !== null) await ctx.checkWebhookUrl(input.webhookUrl);
      const network = input.network ? (active.find((n) => n.code === input.network) ?? null) : null;
      // The last point where nothing is written yet: a client gone by now creates nothing.
      stopIfCancelled(call, 'CreateInvoice');
      const { loaded, created } = await ctx.invoices.create(caller.merchantId, input, network, log.requestId);
      // Not message(loaded): a new invoice's rows are not kept for reads, and its QR code is not
      // cached either (keepQr: false) until something reads it.
      return { invoice: await (messages.get(loaded) ?? toInvoiceMessage(loaded.row, loaded.payments, ctx, { keepQr: false })), created };
    }),
    getInvoice: unary(ctx.logger, 'GetInvoice', async (call) => {
      const caller = await ctx.auth.merchantReader(call.metadata);
      return message(await ctx.invoices.get(call.request.uuid, caller.merchantId));
    }),
    setInvoiceNetwork: unary(ctx.logger, 'SetInvoiceNetwork', async (call, log) => {
      const caller = await ctx.auth.merchant(call.metadata);
      const requested = parseSetInvoiceNetwork(requestBody(caller, () => defined({ network: call.request.network || undefined })));
      // 404 before 422 about the network: another merchant's invoice must not reveal anything.
      await ctx.invoices.get(call.request.uuid, caller.merchantId);
      const network = parseNetwork(requested, await activeNetworks());
      stopIfCancelled(call, 'SetInvoiceNetwork');
      return message(await ctx.invoices.setNetwork(call.request.uuid, caller.merchantId, network, log.requestId));
    }),
    cancelInvoice: unary(ctx.logger, 'CancelInvoice', async (call, log) => {
      const caller = await ctx.auth.merchant(call.metadata);
      CANCEL_INVOICE_FIELDS.assertKnown(requestBody(caller, () => ({})));
      stopIfCancelled(call, 'CancelInvoice');
      return message(await ctx.invoices.cancel(call.request.uuid, caller.merchantId, log.requestId));
    }),
    watchInvoice: serverStream(ctx.logger, 'WatchInvoice', async (call) => {
      const caller = await ctx.auth.merchant(call.metadata);
      const uuid = call.request.uuid;
      await streamInvoiceChanges<InvoiceUpdateMessage>(ctx, call as ServerWritableStream<unknown, InvoiceUpdateMessage>, uuid, async (reason) => {
        const loaded = await ctx.invoices.get(uuid, caller.merchantId);
        const invoice = await message(loaded);
        return { message: { invoice, reason }, open: loaded.row.open, key: JSON.stringify(invoice) };
      });
    }),
    pageInvoices: unary(ctx.logger, 'PageInvoices', async (call) => {
      const caller = await ctx.auth.merchantReaderRequired(call.metadata);
      const query = parseListQuery(call.request.query, { statuses: INVOICE_STATUSES, keyParam: 'order_id' });
      const em = ctx.orm.em.fork();
      const page = await keysetPage(em, Invoice, caller.merchantId, query, 'orderId');
      const payments = page.rows.length ? await em.find(InvoicePayment, { invoiceUuid: { $in: page.rows.map((r) => r.uuid) } }) : [];
      const invoices = await Promise.all(
        page.rows.map((row) =>
          // A page shows no QR code (docs/api.md, Lists): none is drawn, qr_svg is ''.
          toInvoiceMessage(
            row,
            payments.filter((p) => p.invoiceUuid === row.uuid),
            ctx,
            { drawQr: false },
          ),
        ),
      );
      return { invoices, next_cursor: page.nextCursor ?? undefined };
    }),
    listInvoices: unary(ctx.logger, 'ListInvoices', async (call) => {
      const caller = await ctx.auth.merchant(call.metadata);
      const merchantId = caller.via === 'signature' ? caller.merchantId : (caller.merchantId ?? (call.request.merchant_id || null));
      const em = ctx.orm.em.fork();
      const where: Record<string, unknown> = {};
      if (merchantId) where.merchantId = merchantId;
      if (call.request.status) where.status = call.request.status;
      const limit = Math.min(Math.max(call.request.limit || 100, 1), 1000);
      const rows = await em.find(Invoice, where, { orderBy: { createdAt: 'desc' }, limit });
      const payments = rows.length ? await em.find(InvoicePayment, { invoiceUuid: { $in: rows.map((r) => r.uuid) } }) : [];
      return { invoices: await Promise.all(rows.map((row) => message({ row, payments: payments.filter((p) => p.invoiceUuid === row.uuid) }))) };
    }),
  };
  const getInvoice = InvoiceServiceService.getInvoice;
  const definition = { ...InvoiceServiceService, getInvoice: { ...getInvoice, responseSerialize: serializeOnce(getInvoice.responseSerialize) } };
  return { definition, implementation };
}
