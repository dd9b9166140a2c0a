import { formatAmount, toDecimal } from '../domain/decimal';
import type { Withdrawal } from '../store/entities';
import { canonicalDecimal } from '../store/repos/network-settings';

/**
 * A refund row (a withdrawal of kind 'refund') as the API and the webhooks show it: `amount` is
 * what counts against the invoice, `net_payout` what reaches the buyer; `fee` says who paid the
 * network fee (`deducted` from the refund, or the `merchant` on top of it). Absent optionals are
 * `undefined`; the key order is the REST order (restRefundJson).
 */
export type RefundView = ReturnType<typeof refundView>;

export function refundView(row: Withdrawal, scope: { readonly livemode: boolean }) {
  const amount = canonicalDecimal(row.refundAmount ?? row.amount);
  // The merchant paid the fee when the hold exceeds the refund itself.
  const fee = toDecimal(canonicalDecimal(row.amount)).greaterThan(toDecimal(amount)) ? 'merchant' : 'deducted';
  return {
    uuid: row.uuid,
    invoice_uuid: row.invoiceUuid ?? '',
    reference: row.refundReference ?? undefined,
    status: row.status as string,
    network: row.network,
    address: row.address,
    memo: row.memo ?? undefined,
    amount: formatAmount(toDecimal(amount)),
    fee,
    network_fee: canonicalDecimal(row.networkFee),
    net_payout: canonicalDecimal(row.netPayout),
    reason: row.refundReason ?? undefined,
    tx_hash: row.txHash ?? undefined,
    rejection_reason: row.rejectionReason ?? undefined,
    failure_reason: row.status === 'failed' ? (row.failureReason ?? undefined) : undefined,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString(),
    merchant_id: row.merchantId,
    livemode: scope.livemode,
  };
}
