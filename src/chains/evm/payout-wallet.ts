/**
 * The key of an EVM hot wallet in the host's payout book (SignedPayout.wallet, column
 * withdrawals.payout_wallet): nonces are per (chain, address), so two networks sharing one chain id
 * share one book. Migration 20261128020000-payout-book backfills the same shape from signed_meta.
 */
export function evmPayoutWallet(chainId: number, from: string): string {
  return `${chainId}:${from.toLowerCase()}`;
}
