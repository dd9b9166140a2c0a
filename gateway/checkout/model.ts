import type { CheckoutPayment, CheckoutView } from '../../src/grpc/generated/chainpay/v1/invoices';
import type { Network } from '../../src/grpc/generated/chainpay/v1/networks';
import { amount, amountText, ceilAmount } from './amount';
import type { SafeHtml } from './html';
import { httpsUrl, httpUrl, mailtoOf, shortReference, walletLink } from './links';
import { sanitizeQrSvg } from './qr';
import { remainingMs } from './time';

/**
 * What the checkout page shows, and nothing more. Built by picking fields one by one from the
 * daemon's CheckoutView (which already omits metadata, webhook URL and merchant id), so a field
 * added to the Invoice message later never reaches the buyer by accident.
 */
export type CheckoutStatus = 'pending' | 'confirming' | 'partially_paid' | 'paid' | 'overpaid' | 'underpaid' | 'expired' | 'canceled';

const STATUSES: readonly string[] = ['pending', 'confirming', 'partially_paid', 'paid', 'overpaid', 'underpaid', 'expired', 'canceled'];
const FINAL: readonly string[] = ['paid', 'overpaid', 'underpaid', 'expired', 'canceled'];

export interface NetworkOption {
  readonly code: string;
  readonly name: string;
  readonly networkFee: string;
  /** What the buyer would send on this network (display estimate; the daemon computes the real one). */
  readonly payAmount: string;
  readonly minInvoice: string;
  /** False when the invoice amount is below the network's minimum (the daemon would refuse). */
  readonly available: boolean;
}

export interface BuyerPayment {
  readonly txHash: string;
  readonly amount: string;
  readonly confirmations: number;
  readonly status: 'confirming' | 'confirmed' | 'reverted';
  /** https only; null on devnet or when the network has no explorer. */
  readonly explorerUrl: string | null;
}

/** Whom the buyer pays and contacts (merchant set-checkout). */
export interface BuyerMerchant {
  readonly name: string | null;
  readonly supportUrl: string | null;
  readonly supportMailto: string | null;
  readonly supportEmail: string | null;
}

export interface CheckoutModel {
  readonly uuid: string;
  /** Short, readable form of the uuid (links.ts shortReference), on every page. */
  readonly reference: string;
  readonly orderId: string | null;
  readonly merchant: BuyerMerchant;
  /** false on a devnet daemon: the page says it is a test (no real funds). */
  readonly livemode: boolean;
  /** `null` for a status this gateway does not know yet (shown neutrally). */
  readonly status: CheckoutStatus | null;
  readonly final: boolean;
  readonly title: string | null;
  readonly currency: string;
  readonly amount: string;
  readonly payAmount: string;
  /** Shown only when the buyer pays the fees; the merchant's fees are none of the buyer's business. */
  readonly fees: { readonly platformFee: string; readonly networkFee: string } | null;
  readonly network: { readonly code: string; readonly name: string } | null;
  readonly address: string | null;
  readonly memo: string | null;
  /** The QR code of walletLink (so the two always carry the same link). */
  readonly qrSvg: SafeHtml | null;
  /** "Open in wallet": the link for what is still due, only ethereum:/tron:/ton:/solana:. */
  readonly walletLink: string | null;
  readonly payments: readonly BuyerPayment[];
  readonly receivedAmount: string;
  /** pay_amount − received_amount, never below 0. */
  readonly amountDue: string;
  readonly confirmations: number;
  readonly requiredConfirmations: number;
  readonly txHash: string | null;
  readonly expiresAt: string;
  /** Until expiry by the daemon's clock (CheckoutView.now; the gateway's when absent). */
  readonly remainingMs: number;
  readonly paidAt: string | null;
  readonly returnUrl: string | null;
  readonly cancelUrl: string | null;
  /** The network list is offered while the daemon would still accept a choice. */
  readonly canChooseNetwork: boolean;
  readonly networks: readonly NetworkOption[];
}

export class CheckoutViewError extends Error {
  override readonly name = 'CheckoutViewError';
}

export function toCheckoutModel(view: CheckoutView): CheckoutModel {
  const inv = view.invoice;
  if (inv === undefined) throw new CheckoutViewError('checkout view has no invoice');
  const status = STATUSES.includes(inv.status) ? (inv.status as CheckoutStatus) : null;
  const buyerPays = inv.fee_payer !== 'merchant';
  const received = amount(inv.received_amount);
  const due = amount(inv.pay_amount).minus(received);
  const chosen = inv.network ? view.networks.find((n) => n.code === inv.network) : undefined;
  const link = walletLink(view.wallet_link);
  const merchant = view.merchant;
  return {
    uuid: inv.uuid,
    reference: shortReference(inv.uuid),
    orderId: view.order_id?.trim() || null,
    merchant: {
      name: merchant?.display_name?.trim() || null,
      supportUrl: httpsUrl(merchant?.support_url),
      supportMailto: mailtoOf(merchant?.support_email),
      supportEmail: mailtoOf(merchant?.support_email) ? merchant!.support_email! : null,
    },
    livemode: inv.livemode,
    status,
    final: FINAL.includes(inv.status),
    title: inv.title?.trim() || null,
    currency: inv.currency || 'USDT',
    amount: inv.amount,
    payAmount: inv.pay_amount,
    fees: buyerPays ? { platformFee: inv.platform_fee, networkFee: inv.network_fee } : null,
    network: inv.network ? { code: inv.network, name: chosen?.name || inv.network } : null,
    address: inv.address || null,
    memo: inv.memo || null,
    // No link, no QR code: the QR code would otherwise ask for the full amount after a partial payment.
    qrSvg: link ? sanitizeQrSvg(view.wallet_qr_svg) : null,
    walletLink: link,
    payments: view.payments.map(buyerPayment),
    receivedAmount: inv.received_amount,
    amountDue: due.gt(0) ? amountText(due) : '0',
    confirmations: inv.confirmations,
    requiredConfirmations: inv.required_confirmations,
    txHash: inv.tx_hash || null,
    expiresAt: inv.expires_at,
    remainingMs: remainingMs(inv.expires_at, daemonNow(view.now)),
    paidAt: inv.paid_at || null,
    returnUrl: httpUrl(inv.return_url),
    cancelUrl: httpUrl(inv.cancel_url),
    canChooseNetwork: inv.status === 'pending' && received.isZero() && view.networks.length > 0,
    networks: view.networks.filter((n) => n.active).map((n) => networkOption(n, inv.amount, inv.platform_fee, buyerPays)),
  };
}

/**
 * The amount on a network, as the daemon's fee rule gives it: buyer pays amount + platform fee +
 * network fee, merchant pays amount; rounded up to the token's precision. The platform fee of a
 * network-less invoice is already rounded to 8 places, so for 18-decimal tokens this may show up to
 * 1e-8 more than the daemon will ask; the daemon's figure is shown once the network is chosen.
 */
function networkOption(n: Network, invoiceAmountText: string, platformFee: string, buyerPays: boolean): NetworkOption {
  const decimals = n.token_decimals > 0 ? n.token_decimals : 6;
  const invoiceAmount = amount(invoiceAmountText);
  const raw = buyerPays ? invoiceAmount.plus(amount(platformFee)).plus(amount(n.buyer_network_fee)) : invoiceAmount;
  return {
    code: n.code,
    name: n.name || n.code,
    networkFee: buyerPays ? n.buyer_network_fee : '0',
    payAmount: amountText(ceilAmount(raw, decimals)),
    minInvoice: n.min_invoice,
    available: invoiceAmount.gte(amount(n.min_invoice)),
  };
}

/** The daemon's "now", else the gateway's (an older daemon, a view built by hand). */
function daemonNow(now: string | undefined): number {
  const at = now ? Date.parse(now) : Number.NaN;
  return Number.isFinite(at) ? at : Date.now();
}

function buyerPayment(p: CheckoutPayment): BuyerPayment {
  const status = p.status === 'confirmed' || p.status === 'reverted' ? p.status : 'confirming';
  return { txHash: p.tx_hash, amount: p.amount, confirmations: p.confirmations, status, explorerUrl: httpsUrl(p.explorer_url) };
}

/** The buyer's JSON (POST /pay/<uuid>/network and the event stream): the same picked fields. */
export function toBuyerJson(m: CheckoutModel): Record<string, unknown> {
  return {
    uuid: m.uuid,
    reference: m.reference,
    order_id: m.orderId,
    merchant_name: m.merchant.name,
    livemode: m.livemode,
    status: m.status,
    title: m.title,
    currency: m.currency,
    amount: m.amount,
    pay_amount: m.payAmount,
    platform_fee: m.fees?.platformFee ?? null,
    network_fee: m.fees?.networkFee ?? null,
    network: m.network?.code ?? null,
    address: m.address,
    memo: m.memo,
    wallet_link: m.walletLink,
    received_amount: m.receivedAmount,
    amount_due: m.amountDue,
    confirmations: m.confirmations,
    required_confirmations: m.requiredConfirmations,
    tx_hash: m.txHash,
    payments: m.payments.map((p) => ({ tx_hash: p.txHash, amount: p.amount, confirmations: p.confirmations, status: p.status, explorer_url: p.explorerUrl })),
    expires_at: m.expiresAt,
    paid_at: m.paidAt,
    return_url: m.returnUrl,
    cancel_url: m.cancelUrl,
    networks: m.canChooseNetwork ? m.networks.map((n) => ({ code: n.code, name: n.name, network_fee: n.networkFee, pay_amount: n.payAmount, min_invoice: n.minInvoice, available: n.available })) : [],
  };
}
