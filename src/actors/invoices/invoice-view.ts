import type { Invoice, InvoicePayment } from '../../store/entities';
import { canonicalDecimal } from '../../store/repos/network-settings';
import { qrSvg } from './qr';

/**
 * One payment of an invoice, as shown to merchants. Plain data (no generated gRPC types): actors
 * and webhooks must not import src/grpc; grpc/views/invoice-message.ts types it as the message.
 */
export interface PaymentView {
  tx_hash: string;
  event_index: number;
  from: string;
  amount: string;
  confirmations: number;
  status: string;
  block_height: string;
  seen_at: string;
}

/** The row (the truth) as shown to merchants; absent optional fields are `undefined`. */
export interface InvoiceView {
  uuid: string;
  status: string;
  order_id?: string | undefined;
  title?: string | undefined;
  amount: string;
  currency: string;
  platform_fee: string;
  network_fee: string;
  pay_amount: string;
  merchant_net: string;
  fee_payer: string;
  network?: string | undefined;
  address?: string | undefined;
  memo?: string | undefined;
  checkout_url: string;
  qr_svg: string;
  received_amount: string;
  confirmations: number;
  required_confirmations: number;
  tx_hash?: string | undefined;
  metadata_json: string;
  expires_at: string;
  paid_at?: string | undefined;
  created_at: string;
  paid_late: boolean;
  payments: PaymentView[];
  return_url?: string | undefined;
  cancel_url?: string | undefined;
  webhook_url?: string | undefined;
  merchant_id: string;
  payment_uri?: string | undefined;
}

/** The row (the truth) as the control plane and the webhooks show it. */
export function invoiceView(row: Invoice, payments: readonly InvoicePayment[], publicUrl: string): InvoiceView {
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
    checkout_url: `${publicUrl}/pay/${row.uuid}`,
    qr_svg: row.paymentUri ? qrSvg(row.paymentUri) : '',
    received_amount: canonicalDecimal(row.receivedAmount),
    confirmations: row.confirmations,
    required_confirmations: row.requiredConfirmations,
    tx_hash: row.txHash ?? undefined,
    metadata_json: row.metadataJson,
    expires_at: row.expiresAt.toISOString(),
    paid_at: row.paidAt?.toISOString(),
    created_at: row.createdAt.toISOString(),
    paid_late: row.paidLate,
    payments: [...payments].sort((a, b) => a.seenAt.getTime() - b.seenAt.getTime() || a.eventIndex - b.eventIndex).map(paymentView),
    return_url: row.returnUrl ?? undefined,
    cancel_url: row.cancelUrl ?? undefined,
    webhook_url: row.webhookUrl ?? undefined,
    merchant_id: row.merchantId,
    payment_uri: row.paymentUri ?? undefined,
  };
}

function paymentView(p: InvoicePayment): PaymentView {
  return {
    tx_hash: p.txHash,
    event_index: p.eventIndex,
    from: p.fromAddress,
    amount: canonicalDecimal(p.amount),
    confirmations: p.confirmations,
    status: p.state,
    block_height: String(p.blockHeight),
    seen_at: p.seenAt.toISOString(),
  };
}

/** The REST Invoice object (webhook `data`): the spec's fields in the spec's order, nulls explicit. */
export function toRestInvoice(m: InvoiceView): Record<string, unknown> {
  return {
    uuid: m.uuid,
    status: m.status,
    order_id: m.order_id ?? null,
    title: m.title ?? null,
    amount: m.amount,
    currency: m.currency,
    platform_fee: m.platform_fee,
    network_fee: m.network_fee,
    pay_amount: m.pay_amount,
    merchant_net: m.merchant_net,
    fee_payer: m.fee_payer,
    network: m.network ?? null,
    address: m.address ?? null,
    memo: m.memo ?? null,
    checkout_url: m.checkout_url,
    qr_svg: m.qr_svg,
    received_amount: m.received_amount,
    confirmations: m.confirmations,
    required_confirmations: m.required_confirmations,
    tx_hash: m.tx_hash ?? null,
    metadata: JSON.parse(m.metadata_json || '{}') as unknown,
    expires_at: m.expires_at,
    paid_at: m.paid_at ?? null,
    created_at: m.created_at,
    paid_late: m.paid_late,
    payments: m.payments.map((p) => ({ tx_hash: p.tx_hash, event_index: p.event_index, from: p.from, amount: p.amount, confirmations: p.confirmations, status: p.status })),
    return_url: m.return_url ?? null,
    cancel_url: m.cancel_url ?? null,
  };
}
