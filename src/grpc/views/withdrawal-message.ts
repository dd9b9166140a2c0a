import type { Withdrawal as WithdrawalMessage, WhitelistEntry as WhitelistMessage } from '../generated/chainpay/v1/withdrawals';
import type { WhitelistEntry, Withdrawal } from '../../store/entities';
import { withdrawalView } from '../../views/withdrawal-view';

/**
 * The row (the truth) as the control plane shows it. The plain view is the message's shape; the
 * annotation makes the type-check fail here when the generated message gains or changes a field.
 */
export function toWithdrawalMessage(row: Withdrawal, scope: { readonly livemode: boolean }): WithdrawalMessage {
  const message: WithdrawalMessage = withdrawalView(row, scope);
  return message;
}

export function toWhitelistMessage(entry: WhitelistEntry): WhitelistMessage {
  return {
    merchant_id: entry.merchantId,
    network: entry.network,
    address: entry.address,
    added_at: entry.addedAt.toISOString(),
    usable_at: entry.usableAt.toISOString(),
    memo: entry.memo ?? undefined,
  };
}
