import type { ChainAdapter } from '../../chains/types';
import { explorerTemplate, explorerTxUrl } from '../../domain/explorers';
import { formatAmount, toDecimal } from '../../domain/decimal';
import type { NetworkCode, NetworkSettings } from '../../domain/networks';
import { Merchant } from '../../store/entities';
import type { LoadedInvoice } from '../../actors/invoices/invoices';
import { paymentQrSvg } from '../../views/payment-qr';
import type { CheckoutMerchant, CheckoutPayment, CheckoutView } from '../generated/chainpay/v1/invoices';
import type { ServiceContext } from '../context';
import { toNetworkMessage } from '../services/networks';
import { toInvoiceMessage } from './invoice-message';

/**
 * The buyer's view of one invoice (CheckoutService): the invoice without metadata, webhook URL,
 * merchant id; the merchant's checkout settings; the wallet link of what is still due; each
 * payment with its block-explorer link. Everything a link holds comes from the row, the network
 * settings and the chain adapter, never from the request.
 */
export async function checkoutView(ctx: ServiceContext, loaded: LoadedInvoice): Promise<CheckoutView> {
  const row = loaded.row;
  const [invoice, networks, merchant] = await Promise.all([
    toInvoiceMessage(row, loaded.payments, ctx),
    ctx.networks.list(() => ctx.orm.em.fork(), { includeInactive: true }),
    ctx.orm.em.fork().findOne(Merchant, { id: row.merchantId }),
  ]);
  const network = row.network ? networks.find((n) => n.code === row.network) : undefined;
  const template = network ? explorerTemplate(network.code, network.explorerTxUrl, ctx.livemode) : null;
  const walletLink = walletLinkOf(ctx, invoice.status, row, network);
  return {
    invoice: { ...invoice, metadata_json: '{}', webhook_url: undefined, merchant_id: '', order_id: undefined },
    networks: networks.filter((n) => n.active).map((n) => toNetworkMessage(n, ctx.livemode)),
    merchant: checkoutMerchant(merchant),
    order_id: row.orderId ?? undefined,
    wallet_link: walletLink,
    wallet_qr_svg: walletLink ? await paymentQrSvg(walletLink) : '',
    now: ctx.clock.now().toISOString(),
    payments: invoice.payments.map(
      (p): CheckoutPayment => ({ tx_hash: p.tx_hash, amount: p.amount, confirmations: p.confirmations, status: p.status, explorer_url: explorerTxUrl(template, p.tx_hash) }),
    ),
  };
}

function checkoutMerchant(m: Merchant | null): CheckoutMerchant {
  if (m === null) return { display_name: '' };
  return { display_name: m.displayName ?? m.name, support_url: m.supportUrl ?? undefined, support_email: m.supportEmail ?? undefined };
}

/**
 * What the "Open in wallet" button and the QR code carry. Pending: the invoice's own link (the
 * full pay_amount). Partially paid: the same link for the amount still due, built by the
 * network's adapter. Any other status asks for nothing more: ''.
 */
function walletLinkOf(ctx: ServiceContext, status: string, row: LoadedInvoice['row'], network: NetworkSettings | undefined): string {
  if (!row.address || network === undefined) return '';
  if (status === 'pending') return row.paymentUri ?? '';
  if (status !== 'partially_paid') return '';
  const due = toDecimal(row.payAmount).minus(toDecimal(row.receivedAmount));
  if (due.lte(0)) return '';
  const adapter: ChainAdapter | undefined = ctx.adapters.get(network.code as NetworkCode);
  if (adapter === undefined) return '';
  return adapter.paymentLink({ address: row.address, amount: formatAmount(due), memo: row.memo ?? null });
}
