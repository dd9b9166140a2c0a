import type { Withdrawal } from '../../store/entities';
import { canonicalDecimal } from '../../store/repos/network-settings';

/**
 * A withdrawal as shown to merchants. Plain data (no generated gRPC types): actors and webhooks
 * must not import src/grpc; grpc/views/withdrawal-message.ts types it as the message.
 */
export interface WithdrawalView {
  uuid: string;
  reference?: string | undefined;
  status: string;
  network: string;
  address: string;
  amount: string;
  network_fee: string;
  net_payout: string;
  tx_hash?: string | undefined;
  rejection_reason?: string | undefined;
  created_at: string;
  completed_at?: string | undefined;
  merchant_id: string;
  confirmations: number;
}

/** The row (the truth) as the control plane and the webhooks show it. */
export function withdrawalView(row: Withdrawal): WithdrawalView {
  return {
    uuid: row.uuid,
    reference: row.reference ?? undefined,
    status: row.status,
    network: row.network,
    address: row.address,
    amount: canonicalDecimal(row.amount),
    network_fee: canonicalDecimal(row.networkFee),
    net_payout: canonicalDecimal(row.netPayout),
    tx_hash: row.txHash ?? undefined,
    rejection_reason: row.rejectionReason ?? undefined,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString(),
    merchant_id: row.merchantId,
    confirmations: row.confirmations,
  };
}

/** The REST Withdrawal object of the spec (webhook `data`): every field, null where unset. */
export function toRestWithdrawal(w: WithdrawalView): Record<string, unknown> {
  return {
    uuid: w.uuid,
    reference: w.reference ?? null,
    status: w.status,
    network: w.network,
    address: w.address,
    amount: w.amount,
    network_fee: w.network_fee,
    net_payout: w.net_payout,
    tx_hash: w.tx_hash ?? null,
    rejection_reason: w.rejection_reason ?? null,
    created_at: w.created_at,
    completed_at: w.completed_at ?? null,
  };
}
