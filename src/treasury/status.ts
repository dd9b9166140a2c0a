import { formatAmount, toDecimal } from '../domain/decimal';
import type { NetworkCode } from '../domain/networks';
import type { Query } from '../store/raw-sql';
import { treasuryAccounts } from '../store/repos/ledger-accounts';
import type { TreasuryConfig } from './config';
import type { Treasury } from './treasury';

export interface TreasuryNetworkStatus {
  readonly network: string;
  readonly sweepable: boolean;
  readonly automatic: boolean;
  readonly hotAddress: string;
  readonly hotUsdt: string;
  readonly hotGas: string;
  readonly gasCoin: string;
  /** Ledger holdings by account name (assets as positive figures). */
  readonly accounts: Readonly<Record<string, string>>;
  readonly sweepsInFlight: number;
  readonly sweepsCompleted: number;
  readonly sweepsReverted: number;
  readonly sweepFeesPaid: string;
  readonly networkFeesCollected: string;
}

/** What `chainpay treasury status` shows per network: the ledger's accounts, the hot wallet on the chain, the sweeps. */
export async function treasuryStatus(q: Query, treasury: Treasury, config: TreasuryConfig, networks: readonly NetworkCode[]): Promise<TreasuryNetworkStatus[]> {
  const sweepers = treasury.sweepers();
  const out: TreasuryNetworkStatus[] = [];
  for (const network of networks) {
    await treasury.ensureOpening(network).catch(() => undefined); // the chain may be down: the ledger still answers
    const names = treasuryAccounts(network);
    const sums = await q<{ account: string; s: string }>('select account, sum(amount)::text as s from ledger_entries where account = any($1) group by account', [Object.values(names)]);
    const accounts: Record<string, string> = {};
    for (const [name, account] of Object.entries(names)) {
      const sum = toDecimal(sums.find((r) => r.account === account)?.s ?? '0');
      accounts[name] = formatAmount(name === 'network_fees_collected' ? sum : sum.negated());
    }
    const [counts] = await q<{ open: number; completed: number; reverted: number }>(
      `select count(*) filter (where open)::int as open, count(*) filter (where outcome = 'completed')::int as completed, count(*) filter (where outcome = 'reverted')::int as reverted
         from sweeps where network = $1`,
      [network],
    );
    const sweeper = sweepers.get(network);
    const hot = sweeper ? await sweeper.balances(sweeper.hotAddress()).catch(() => null) : null;
    out.push({
      network,
      sweepable: sweeper !== undefined,
      automatic: sweeper !== undefined && config.networks[network].enabled,
      hotAddress: sweeper?.hotAddress() ?? '',
      hotUsdt: hot?.token ?? '',
      hotGas: hot?.gas ?? '',
      gasCoin: sweeper?.gasCoin ?? '',
      accounts,
      sweepsInFlight: counts?.open ?? 0,
      sweepsCompleted: counts?.completed ?? 0,
      sweepsReverted: counts?.reverted ?? 0,
      sweepFeesPaid: accounts.gas_fees ?? '0',
      networkFeesCollected: accounts.network_fees_collected ?? '0',
    });
  }
  return out;
}
