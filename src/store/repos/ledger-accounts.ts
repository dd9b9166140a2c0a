/**
 * The ledger's money accounts per network (DESIGN.md, "Money: where it is, and who moves it").
 * Signs as in store/entities/ledger.ts: asset and expense accounts grow NEGATIVE (a debit), the
 * merchants' balances and the owner's funding grow positive (a credit); a journal sums to zero.
 *
 * USDT (token units), per network, together what the chain holds of the token:
 * - `chain:<NET>:deposits`   on the pool's deposit addresses (credited deposits land here);
 * - `chain:<NET>:in_transit` a sweep broadcast and not final yet (two-phase: pending → posted/voided);
 * - `chain:<NET>:hot`        the payout hot wallet (sweeps posted in, payouts out);
 * - `chain:<NET>:cold`       sent on to the cold address (it leaves our keys: an outflow like a payout);
 * - `chain:<NET>:funding`    the operator's own money put into the hot wallet (owner's equity).
 * The native coin (its own unit, never in a journal with USDT), per network (one coin each):
 * - `gas:<NET>:hot`       the hot wallet's gas coin;
 * - `gas:<NET>:deposits`  gas topped up onto deposit addresses and not burnt yet;
 * - `gas:<NET>:fees`      the network-fee expense: every fee a sweep or its top-up paid, from receipts;
 * - `gas:<NET>:funding`   the operator's gas coin put into the hot wallet.
 * Before the treasury (migration 20261129100000) the asset side was `chain:<NET>:deposits` plus
 * `chain:<NET>:payouts`; that migration folds the latter into deposits, and payouts now leave `hot`.
 */
export const depositsAccount = (network: string): string => `chain:${network}:deposits`;
export const inTransitAccount = (network: string): string => `chain:${network}:in_transit`;
export const hotAccount = (network: string): string => `chain:${network}:hot`;
export const coldAccount = (network: string): string => `chain:${network}:cold`;
export const fundingAccount = (network: string): string => `chain:${network}:funding`;
/** Before the split: the hot wallet's outflow. Nothing books to it any more; kept to read old rows. */
export const legacyPayoutsAccount = (network: string): string => `chain:${network}:payouts`;

export const gasHotAccount = (network: string): string => `gas:${network}:hot`;
export const gasDepositsAccount = (network: string): string => `gas:${network}:deposits`;
export const gasFeesAccount = (network: string): string => `gas:${network}:fees`;
export const gasFundingAccount = (network: string): string => `gas:${network}:funding`;

/** The network fees buyers and merchants paid us (invoices and withdrawals), USDT: shown beside the sweep fees. */
export const collectedNetworkFeesAccount = (network: string): string => `network:${network}:fees`;

/** Every treasury account of a network, by the name operators and metrics use. */
export function treasuryAccounts(network: string): Record<string, string> {
  return {
    deposits: depositsAccount(network),
    in_transit: inTransitAccount(network),
    hot: hotAccount(network),
    cold: coldAccount(network),
    gas_hot: gasHotAccount(network),
    gas_deposits: gasDepositsAccount(network),
    gas_fees: gasFeesAccount(network),
    network_fees_collected: collectedNetworkFeesAccount(network),
  };
}
