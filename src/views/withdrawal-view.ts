import type { Withdrawal } from '../store/entities';
import { canonicalDecimal } from '../store/repos/network-settings';

/**
 * The row (the truth) as the control plane and the webhooks show it: plain data, absent optional
 * fields `undefined`. Actors and webhooks must not import src/grpc, so this has no generated type;
 * grpc/views/withdrawal-message.ts assigns it to the message, and the type-check fails there when
 * the two drift apart. Its REST JSON (webhook `data`) is src/lib/rest-json.ts, the gateway's own.
 */
export type WithdrawalView = ReturnType<typeof withdrawalView>;

/** `scope.livemode`: false on devnet (DESIGN.md: objects carry livemode). */
export function withdrawalView(row: Withdrawal, scope: { readonly livemode: boolean }) {
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
    // The row also holds why a processing withdrawal waits for an operator: shown once failed only.
    failure_reason: row.status === 'failed' ? (row.failureReason ?? undefined) : undefined,
    created_at: row.createdAt.toISOString(),
    completed_at: row.completedAt?.toISOString(),
    merchant_id: row.merchantId,
    confirmations: row.confirmations,
    livemode: scope.livemode,
    memo: row.memo ?? undefined,
  };
}
