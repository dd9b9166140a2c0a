import { Withdrawal, type WithdrawalStatus } from '../../store/entities';

/** The columns of a withdrawal row its actor's commits read (all but the signed payout and the snapshot). */
export interface LockedRow {
  uuid: string;
  merchant_id: string;
  reference: string | null;
  memo: string | null;
  status: WithdrawalStatus;
  network: string;
  address: string;
  amount: string;
  network_fee: string;
  net_payout: string;
  tx_hash: string | null;
  confirmations: number;
  rejection_reason: string | null;
  failure_reason: string | null;
  completed_ms: number | null;
  open: boolean;
  created_ms: number;
  updated_ms: number;
  version: number;
  kind: 'withdrawal' | 'refund';
  invoice_uuid: string | null;
  refund_amount: string | null;
  refund_reference: string | null;
  refund_reason: string | null;
}

export const LOCK_ROW = `select uuid::text, merchant_id::text, reference, memo, status, network, address, amount::text, network_fee::text, net_payout::text, tx_hash, confirmations,
         rejection_reason, failure_reason, (extract(epoch from completed_at) * 1000)::float8 as completed_ms, open,
         (extract(epoch from created_at) * 1000)::float8 as created_ms, (extract(epoch from updated_at) * 1000)::float8 as updated_ms, version,
         kind, invoice_uuid::text, refund_amount::text, refund_reference, refund_reason
    from withdrawals where uuid = $1 for update`;

export function withdrawalOf(r: LockedRow): Withdrawal {
  const row = new Withdrawal(r.uuid, r.merchant_id, r.status, r.network, r.address, r.amount, r.network_fee, r.net_payout, new Date(Number(r.created_ms)));
  Object.assign(row, {
    reference: r.reference,
    memo: r.memo,
    txHash: r.tx_hash,
    confirmations: r.confirmations,
    rejectionReason: r.rejection_reason,
    failureReason: r.failure_reason,
    completedAt: r.completed_ms === null ? null : new Date(Number(r.completed_ms)),
    open: r.open,
    updatedAt: new Date(Number(r.updated_ms)),
    version: r.version,
    // A refund's commits announce refund.* events with the Refund object (webhooks/outbox.ts).
    kind: r.kind,
    invoiceUuid: r.invoice_uuid,
    refundAmount: r.refund_amount,
    refundReference: r.refund_reference,
    refundReason: r.refund_reason,
  });
  return row;
}
