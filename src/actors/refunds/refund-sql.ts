import type { Withdrawal } from '../../store/entities';
import type { Query } from '../../store/raw-sql';
import { canonicalDecimal } from '../../store/repos/network-settings';

/** Refund statuses that no longer hold anything: they count neither against the invoice nor the caps. */
export const ENDED_WITHOUT_PAYOUT = ['rejected', 'failed', 'expired', 'canceled'] as const;

export interface RefundLockState {
  readonly capPerRefund: string;
  readonly capDailyRefund: string;
  readonly available: string;
  /** Sum of the merchant's refunds (held amounts) of the last 24 h that did not end without payout. */
  readonly usedLast24h: string;
  readonly invoice: { status: string; network: string | null; received: string; payAmount: string; paidLate: boolean; refunded: string } | null;
  /** The uuid of the merchant's refund with the request's reference, if any. */
  readonly known: string | null;
}

/**
 * Under the merchant's row lock (the lock withdrawals take, so holds of both are serialized) and
 * the invoice's row lock: everything a refund is judged on. The locks come first, in their own
 * statement: the read after them sees every refund and balance change committed before.
 * Returns null for an unknown merchant.
 */
export async function lockAndRead(q: Query, merchantId: string, invoiceUuid: string, since: Date, reference: string | null): Promise<RefundLockState | null> {
  const m = await q<{ id: string }>('select id from merchants where id = $1 for update', [merchantId], 'chainpay_refund_lock_merchant');
  if (m.length === 0) return null;
  await q('select uuid from invoices where uuid = $1 and merchant_id = $2 for update', [invoiceUuid, merchantId], 'chainpay_refund_lock_invoice');
  const [row] = await q<{
    per: string;
    daily: string;
    available: string | null;
    used: string;
    invoice: { status: string; network: string | null; received: string; pay_amount: string; paid_late: boolean } | null;
    refunded: string;
    known: string | null;
  }>(
    `select m.cap_per_refund::text as per, m.cap_daily_refund::text as daily,
            (select available::text from merchant_balances where merchant_id = m.id) as available,
            (select coalesce(sum(amount), 0)::text from withdrawals
              where merchant_id = m.id and kind = 'refund' and created_at > $3::timestamptz and status <> all($4::text[])) as used,
            (select json_build_object('status', status, 'network', network, 'received', booked_received::text, 'pay_amount', pay_amount::text, 'paid_late', paid_late)
               from invoices where uuid = $2 and merchant_id = m.id) as invoice,
            (select coalesce(sum(refund_amount), 0)::text from withdrawals
              where invoice_uuid = $2 and kind = 'refund' and status <> all($4::text[])) as refunded,
            (select uuid::text from withdrawals where merchant_id = m.id and refund_reference = $5) as known
       from merchants m where m.id = $1`,
    [merchantId, invoiceUuid, since.toISOString(), [...ENDED_WITHOUT_PAYOUT], reference],
    'chainpay_refund_under_lock',
  );
  if (!row) return null;
  const inv = typeof row.invoice === 'string' ? JSON.parse(row.invoice) : row.invoice;
  return {
    capPerRefund: canonicalDecimal(row.per),
    capDailyRefund: canonicalDecimal(row.daily),
    available: canonicalDecimal(row.available ?? '0'),
    usedLast24h: canonicalDecimal(row.used),
    invoice: inv
      ? {
          status: inv.status,
          network: inv.network,
          received: canonicalDecimal(inv.received),
          payAmount: canonicalDecimal(inv.pay_amount),
          paidLate: inv.paid_late,
          refunded: canonicalDecimal(row.refunded),
        }
      : null,
    known: row.known,
  };
}

/** The refund columns of a row just inserted by insertWithdrawals (same transaction). */
export async function markRefund(q: Query, row: Withdrawal, invoiceUuid: string): Promise<void> {
  await q(
    `update withdrawals set kind = 'refund', invoice_uuid = $2, refund_amount = $3::numeric, refund_reference = $4, refund_reason = $5 where uuid = $1`,
    [row.uuid, invoiceUuid, row.refundAmount, row.refundReference, row.refundReason],
    'chainpay_refund_mark',
  );
}
