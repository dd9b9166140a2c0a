import { Counter, Gauge, type Registry } from 'prom-client';
import type { Query } from '../store/raw-sql';
import { treasuryAccounts } from '../store/repos/ledger-accounts';
import type { SweepOutcome } from './sweep-machine';

/**
 * The treasury's Prometheus series (docs/treasury.md, "Metrics"):
 * - chainpay_treasury_balance{network,account}: each treasury ledger account's holding (assets as
 *   positive figures), read from the ledger at scrape time;
 * - chainpay_sweep_fee_total{network}: gas coin paid by finished sweeps (top-up + transfer);
 * - chainpay_sweeps_total{network,outcome}: finished sweeps by outcome (completed, reverted, failed).
 * Metric values are floats by nature: ledger sums are converted from decimal strings only here.
 */
export class TreasuryMetrics {
  private readonly fees = new Counter({ name: 'chainpay_sweep_fee_total', help: 'Gas coin paid by finished sweeps, top-ups included', labelNames: ['network'] as const, registers: [] });
  private readonly sweeps = new Counter({ name: 'chainpay_sweeps_total', help: 'Finished sweeps by outcome', labelNames: ['network', 'outcome'] as const, registers: [] });
  private readonly balance: Gauge<'network' | 'account'>;

  constructor(query: Query, networks: () => readonly string[]) {
    this.balance = new Gauge({
      name: 'chainpay_treasury_balance',
      help: 'Treasury ledger accounts per network (deposits, in transit, hot, cold in USDT; gas_* in the gas coin)',
      labelNames: ['network', 'account'] as const,
      registers: [],
      collect: async () => {
        this.balance.reset();
        for (const network of networks()) {
          const accounts = treasuryAccounts(network);
          const rows = await query<{ account: string; s: string }>('select account, sum(amount)::text as s from ledger_entries where account = any($1) group by account', [Object.values(accounts)]);
          for (const [name, account] of Object.entries(accounts)) {
            const sum = Number(rows.find((r) => r.account === account)?.s ?? '0');
            // Assets and expenses are booked negative; the collected network fees are a credit.
            this.balance.set({ network, account: name }, name === 'network_fees_collected' ? sum : -sum);
          }
        }
      },
    });
  }

  outcome(network: string, outcome: SweepOutcome, fee: string | null): void {
    this.sweeps.inc({ network, outcome });
    if (fee !== null) this.fees.inc({ network }, Number(fee));
  }

  register(registry: Registry): void {
    registry.registerMetric(this.fees);
    registry.registerMetric(this.sweeps);
    registry.registerMetric(this.balance);
  }
}
