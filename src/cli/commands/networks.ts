import type { Network } from '../../grpc/generated/chainpay/v1/networks';
import { fields, table } from '../output';
import type { CommandSpec } from '../command';

const COLUMNS = ['code', 'name', 'buyer_network_fee', 'withdrawal_fee', 'min_invoice', 'min_withdrawal', 'required_confirmations', 'deposit_mode', 'active', 'chain_mode'] as const;
const FEE_OPTIONS = ['buyer-network-fee', 'withdrawal-fee', 'min-invoice', 'min-withdrawal', 'confirmations', 'active'] as const;

export const networkCommands: readonly CommandSpec[] = [
  {
    name: 'networks',
    usage: '[--all]',
    summary: 'list networks with live fees and minimums (--all includes inactive ones)',
    options: { all: { type: 'boolean' } },
    async run({ args, rpc, out }) {
      const c = rpc.networks;
      const res = await rpc.call(c, c.listNetworks, { include_inactive: args.flag('all') });
      out.result(res, () => table(res.networks, COLUMNS));
    },
  },
  {
    name: 'networks set-fee',
    usage: '--network CODE [--buyer-network-fee A] [--withdrawal-fee A] [--min-invoice A] [--min-withdrawal A] [--confirmations N] [--active true|false]',
    summary: "change a network's fees, minimums or required confirmations (live)",
    options: {
      network: { type: 'string', required: true },
      'buyer-network-fee': { type: 'string' },
      'withdrawal-fee': { type: 'string' },
      'min-invoice': { type: 'string' },
      'min-withdrawal': { type: 'string' },
      confirmations: { type: 'string' },
      active: { type: 'string' },
    },
    async run({ args, rpc, out }) {
      args.requireAny(FEE_OPTIONS);
      const c = rpc.networks;
      const n: Network = await rpc.call(c, c.updateNetworkFees, {
        code: args.str('network'),
        buyer_network_fee: args.opt('buyer-network-fee'),
        withdrawal_fee: args.opt('withdrawal-fee'),
        min_invoice: args.opt('min-invoice'),
        min_withdrawal: args.opt('min-withdrawal'),
        required_confirmations: args.int32('confirmations', 1),
        active: args.bool('active'),
      });
      out.result(n, () => fields(n, COLUMNS));
    },
  },
  {
    name: 'networks set-explorer',
    usage: '--network CODE --tx-url TEMPLATE|default|none',
    summary: "the block-explorer link of the checkout page's payments: an https URL with {tx} once, default (the mainnet explorer) or none",
    options: { network: { type: 'string', required: true }, 'tx-url': { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const given = args.str('tx-url');
      const c = rpc.networks;
      const n: Network = await rpc.call(c, c.updateNetworkFees, { code: args.str('network'), explorer_tx_url: given === 'none' ? '' : given });
      out.result(n, () => fields(n, [...COLUMNS, 'explorer_tx_url']));
    },
  },
];
