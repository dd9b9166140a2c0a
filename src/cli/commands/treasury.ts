import type { TreasuryNetworkStatus } from '../../grpc/generated/chainpay/v1/treasury';
import type { CommandSpec } from '../command';
import { fields, table } from '../output';

const STATUS = [
  'network',
  'sweepable',
  'automatic',
  'hot_usdt',
  'hot_gas',
  'gas_coin',
  'sweeps_in_flight',
  'sweeps_completed',
  'sweeps_reverted',
  'sweep_fees_paid',
  'network_fees_collected',
] as const;

const showStatus = (s: TreasuryNetworkStatus): string => [fields(s, [...STATUS, 'hot_address']), table(s.accounts, ['name', 'balance'])].join('\n');

export const treasuryCommands: readonly CommandSpec[] = [
  {
    name: 'treasury status',
    usage: '[--network CODE] [--json]',
    summary: 'hot wallets, ledger accounts (deposits, in transit, hot, gas), sweeps and fees',
    options: { network: { type: 'string' } },
    async run({ args, rpc, out }) {
      const c = rpc.treasury;
      const res = await rpc.call(c, c.status, { network: args.opt('network') ?? '' });
      out.result(res, () => res.networks.map(showStatus).join('\n\n'));
    },
  },
  {
    name: 'treasury sweep',
    usage: '--network CODE [--address ADDRESS] [--dry-run] [--json]',
    summary: 'sweep every address holding final funds now (or say what would move and cost)',
    options: { network: { type: 'string', required: true }, address: { type: 'string' }, 'dry-run': { type: 'boolean' } },
    async run({ args, rpc, out }) {
      const c = rpc.treasury;
      const res = await rpc.call(c, c.sweepNow, { network: args.str('network'), address: args.opt('address') ?? '', dry_run: args.flag('dry-run') });
      out.result(res, () => table(res.sweeps, ['address', 'balance', 'decision', 'target', 'amount', 'fee', 'gas_top_up', 'sweep_id']));
    },
  },
];
