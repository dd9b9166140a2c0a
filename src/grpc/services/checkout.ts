import type { ServerWritableStream } from '@grpc/grpc-js';
import { MalformedRequestError } from '../../domain/errors';
import { parseNetwork } from '../../domain/invoice-request';
import { CheckoutServiceService, type CheckoutServiceServer, type CheckoutView } from '../generated/chainpay/v1/invoices';
import { checkoutView } from '../views/checkout-view';
import type { LoadedInvoice } from '../../actors/invoices/invoices';
import { streamInvoiceChanges } from './invoice-stream';
import { serverStream, unary } from '../handler';
import type { ServiceContext } from '../context';

/**
 * The buyer's view of one invoice, unauthenticated and scoped to its uuid: only what paying needs.
 * No metadata, webhook URL or merchant id ever leaves through here.
 */
export function checkoutService(ctx: ServiceContext): { definition: typeof CheckoutServiceService; implementation: CheckoutServiceServer } {
  const view = (loaded: LoadedInvoice): Promise<CheckoutView> => checkoutView(ctx, loaded);
  const implementation: CheckoutServiceServer = {
    getCheckout: unary(ctx.logger, 'GetCheckout', async (call) => view(await ctx.invoices.get(call.request.uuid, null))),
    chooseNetwork: unary(ctx.logger, 'ChooseNetwork', async (call, log) => {
      if (!call.request.network) throw new MalformedRequestError('network is required', 'network', 'missing_field');
      await ctx.invoices.get(call.request.uuid, null);
      const network = parseNetwork(call.request.network, await ctx.networks.list(() => ctx.orm.em.fork()));
      return view(await ctx.invoices.setNetwork(call.request.uuid, null, network, log.requestId));
    }),
    watchCheckout: serverStream(ctx.logger, 'WatchCheckout', async (call) => {
      const uuid = call.request.uuid;
      await streamInvoiceChanges<CheckoutView>(ctx, call as ServerWritableStream<unknown, CheckoutView>, uuid, async () => {
        const loaded = await ctx.invoices.get(uuid, null);
        const message = await view(loaded);
        return { message, open: loaded.row.open, key: JSON.stringify(message) };
      });
    }),
  };
  return { definition: CheckoutServiceService, implementation };
}
