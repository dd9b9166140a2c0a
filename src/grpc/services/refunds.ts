import { RefundServiceService, type RefundServiceServer } from '../generated/chainpay/v1/refunds';
import { toRefundMessage } from '../views/refund-message';
import { defined, requestBody } from '../request-body';
import { unary } from '../handler';
import type { ServiceContext } from '../context';
import { stopIfCancelled } from '../call-cancelled';

/**
 * Refunds of a merchant's invoices (signed REST through the gateway, or the operator/service token
 * with x-merchant-id). The signed body is judged as sent; the invoice is the path's.
 */
export function refundService(ctx: ServiceContext): { definition: typeof RefundServiceService; implementation: RefundServiceServer } {
  const implementation: RefundServiceServer = {
    createRefund: unary(ctx.logger, 'CreateRefund', async (call) => {
      const caller = await ctx.auth.merchantRequired(call.metadata);
      const r = call.request;
      const body = requestBody(caller, () => defined({ amount: r.amount, address: r.address, memo: r.memo, reason: r.reason, reference: r.reference, fee: r.fee }));
      const networks = await ctx.networks.list(() => ctx.orm.em.fork());
      // The last point where nothing is written yet: a client gone by now requests no payout.
      stopIfCancelled(call, 'CreateRefund');
      const { row, created } = await ctx.refunds.create(caller.merchantId, r.invoice_uuid, body, networks);
      return { refund: toRefundMessage(row, ctx), created };
    }),
    getRefund: unary(ctx.logger, 'GetRefund', async (call) => {
      const caller = await ctx.auth.merchant(call.metadata);
      return toRefundMessage(await ctx.refunds.get(call.request.uuid, caller.merchantId), ctx);
    }),
    listInvoiceRefunds: unary(ctx.logger, 'ListInvoiceRefunds', async (call) => {
      const caller = await ctx.auth.merchantRequired(call.metadata);
      const rows = await ctx.refunds.listForInvoice(call.request.invoice_uuid, caller.merchantId);
      return { refunds: rows.map((row) => toRefundMessage(row, ctx)) };
    }),
    cancelRefund: unary(ctx.logger, 'CancelRefund', async (call) => {
      const caller = await ctx.auth.merchantRequired(call.metadata);
      return toRefundMessage(await ctx.refunds.cancel(call.request.uuid, caller.merchantId), ctx);
    }),
  };
  return { definition: RefundServiceService, implementation };
}
