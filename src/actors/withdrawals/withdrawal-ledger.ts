import { formatAmount, toDecimal } from '../../domain/decimal';
import type { Withdrawal } from '../../store/entities';
import type { Query } from '../../store/raw-sql';
import { merchantAvailable, merchantHeld, postJournalsSql, type JournalInput, type LedgerLine } from '../../store/repos/ledger';
import { canonicalDecimal } from '../../store/repos/network-settings';
import { hotAccount } from '../../store/repos/ledger-accounts';

/**
 * The withdrawal's journals. Accounts (signs as in store/entities/ledger.ts: liabilities are
 * credit-positive, asset accounts move negative when they grow):
 * - `merchant:<id>:available` / `merchant:<id>:held`: the merchant's money, free and reserved;
 * - `chain:<NET>:hot`: the hot wallet that pays (+net_payout per payout; store/repos/ledger-accounts.ts;
 *   before the treasury this was `chain:<NET>:payouts`);
 * - `network:<NET>:fees`: the withdrawal fee kept to pay the chain's gas (same account invoices use).
 * Each journal's reference names one business event, so a replay never books twice.
 */
export const holdReference = (uuid: string): string => `withdrawal:${uuid}:hold`;
export const payoutReference = (uuid: string): string => `withdrawal:${uuid}:payout`;
export const releaseReference = (uuid: string): string => `withdrawal:${uuid}:release`;

const neg = (amount: string): string => formatAmount(toDecimal(amount).negated());

/** At creation: available −amount, held +amount (the check constraint refuses an overdraw). */
export function holdLines(merchantId: string, amount: string): LedgerLine[] {
  return [
    { account: merchantAvailable(merchantId), amount: neg(amount) },
    { account: merchantHeld(merchantId), amount },
  ];
}

/** Completed: the held amount leaves as net_payout on chain plus the network fee. */
export function payoutLines(input: { merchantId: string; network: string; amount: string; networkFee: string; netPayout: string }): LedgerLine[] {
  return [
    { account: merchantHeld(input.merchantId), amount: neg(input.amount) },
    { account: hotAccount(input.network), amount: input.netPayout },
    { account: `network:${input.network}:fees`, amount: input.networkFee },
  ];
}

/** Rejected, failed or (a refund) canceled: the hold goes back to the available balance. */
export function releaseLines(merchantId: string, amount: string): LedgerLine[] {
  return [
    { account: merchantHeld(merchantId), amount: neg(amount) },
    { account: merchantAvailable(merchantId), amount },
  ];
}

/**
 * In the transaction that moves a withdrawal to its end (RawSql.transaction): the hold ends once,
 * paid out on completion, released on rejection or failure (a replay books nothing twice).
 */
export async function bookOutcomeSql(q: Query, row: Withdrawal, now: Date): Promise<void> {
  const journal = outcomeJournal(row);
  if (journal) await postJournalsSql(q, [journal], now);
}

/** The journal that ends the hold of a withdrawal in `row.status`, or null while it is not over. */
function outcomeJournal(row: Withdrawal): JournalInput | null {
  const amount = canonicalDecimal(row.amount);
  if (row.status === 'completed') {
    const lines = payoutLines({ merchantId: row.merchantId, network: row.network, amount, networkFee: canonicalDecimal(row.networkFee), netPayout: canonicalDecimal(row.netPayout) });
    return { reference: payoutReference(row.uuid), kind: 'withdrawal_payout', lines };
  }
  if (row.status === 'rejected' || row.status === 'failed' || row.status === 'canceled') {
    return { reference: releaseReference(row.uuid), kind: 'withdrawal_release', lines: releaseLines(row.merchantId, amount) };
  }
  return null;
}
