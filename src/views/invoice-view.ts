import type { Invoice, InvoicePayment } from '../store/entities';
import { canonicalDecimal } from '../store/repos/network-settings';
import { paymentQrSvg } from './payment-qr';

/**
 * The row (the truth) as the control plane and the webhooks show it: plain data, absent optional
 * fields `undefined`. Webhooks must not import src/grpc, so this has no generated type;
 * grpc/views/invoice-message.ts assigns it to the message, and the type-check fails there when the
 * two drift apart. Its REST JSON (webhook `data`) is src/lib/rest-json.ts, the gateway's own.
 */
export type InvoiceView = ReturnType<typeof invoiceFields>;

/** What every object of one daemon shares: the checkout base URL, and the mode (a database holds one). */
export interface ViewScope {
  readonly publicUrl: string;
  /** false on devnet: every object says it is a test (DESIGN.md, Embedded defaults). */
  readonly livemode: boolean;
}

/**
 * The view of an invoice with its QR code drawn (or taken from the cache). `keepQr: false`: the
 * SVG is not cached for later reads (PaymentQrCache.get; a creation's response). `drawQr: false`:
 * `qr_svg` stays '' (a page of a list, which does not show it).
 */
export async function invoiceView(row: Invoice, payments: readonly InvoicePayment[], scope: ViewScope, options: { keepQr?: boolean; drawQr?: boolean } = {}): Promise<InvoiceView> {
  // The fields are read from the row at once, before the await: the QR code is then the one of
  // this view's payment_uri even if the row changes meanwhile.
  const view = invoiceFields(row, payments, scope);
  if (view.payment_uri && options.drawQr !== false) view.qr_svg = await paymentQrSvg(view.payment_uri, { keep: options.keepQr });
  return view;
}

/** The fields of the view; `qr_svg` is '' until invoiceView draws the payment link's QR code ('' while no network is chosen). */
function invoiceFields(row: Invoice, payments: readonly InvoicePayment[], scope: ViewScope) {
  return {
    uuid: row.uuid,
    status: row.status,
    order_id: row.orderId ?? undefined,
    title: row.title ?? undefined,
    amount: canonicalDecimal(row.amount),
    currency: row.currency,
    platform_fee: canonicalDecimal(row.platformFee),
    network_fee: canonicalDecimal(row.networkFee),
    pay_amount: canonicalDecimal(row.payAmount),
    merchant_net: canonicalDecimal(row.merchantNet),
    fee_payer: row.feePayer,
    network: row.network ?? undefined,
    address: row.address ?? undefined,
    memo: row.memo ?? undefined,
    checkout_url: `${scope.publicUrl}/pay/${row.uuid}`,
    qr_svg: '',
    received_amount: canonicalDecimal(row.receivedAmount),
    confirmations: row.confirmations,
    required_confirmations: row.requiredConfirmations,
    tx_hash: row.txHash ?? undefined,
    metadata_json: row.metadataJson,
    expires_at: row.expiresAt.toISOString(),
    paid_at: row.paidAt?.toISOString(),
    created_at: row.createdAt.toISOString(),
    paid_late: row.paidLate,
    payments: [...payments].sort((a, b) => a.seenAt.getTime() - b.seenAt.getTime() || a.eventIndex - b.eventIndex).map((p) => paymentView(p, row.requiredConfirmations)),
    return_url: row.returnUrl ?? undefined,
    cancel_url: row.cancelUrl ?? undefined,
    webhook_url: row.webhookUrl ?? undefined,
    merchant_id: row.merchantId,
    payment_uri: row.paymentUri ?? undefined,
    livemode: scope.livemode,
  };
}

/**
 * One rule for both counts (docs/api.md, Confirmations): a payment's `confirmations` counts up to the
 * invoice's `required_confirmations` and stops there, as the invoice's own does (the smallest of its
 * live payments'). The stored count may be higher (a watcher that saw several blocks at once, or
 * blocks after the payment was confirmed): past the requirement it says nothing more.
 */
function paymentView(p: InvoicePayment, requiredConfirmations: number) {
  return {
    tx_hash: p.txHash,
    event_index: p.eventIndex,
    from: p.fromAddress,
    amount: canonicalDecimal(p.amount),
    confirmations: Math.min(p.confirmations, requiredConfirmations),
    status: p.state,
    block_height: String(p.blockHeight),
    seen_at: p.seenAt.toISOString(),
  };
}
