import { fields, table } from '../output';
import type { CommandSpec } from '../command';

const COLUMNS = ['id', 'network', 'address', 'memo', 'amount', 'tx_hash', 'event_index', 'from', 'status', 'invoice_uuid', 'reason', 'intended_invoice_uuid', 'intended_network', 'seen_at'] as const;

export const depositCommands: readonly CommandSpec[] = [
  {
    name: 'deposits unattributed',
    usage: '[--status open|attributed]',
    summary: 'transfers to our addresses that matched no invoice',
    options: { status: { type: 'string' } },
    async run({ args, rpc, out }) {
      const c = rpc.operator;
      const res = await rpc.call(c, c.listUnattributed, { status: args.opt('status') });
      out.result(res, () => table(res.deposits, ['id', 'network', 'amount', 'address', 'memo', 'tx_hash', 'status', 'reason', 'intended_invoice_uuid', 'intended_network', 'seen_at']));
    },
  },
  {
    name: 'deposits attribute',
    usage: 'DEPOSIT_ID --invoice UUID',
    summary: 'credit an unattributed deposit to an invoice',
    positionals: ['DEPOSIT_ID'],
    options: { invoice: { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const c = rpc.operator;
      const d = await rpc.call(c, c.attributeDeposit, { deposit_id: args.pos(0), invoice_uuid: args.str('invoice') });
      out.result(d, () => fields(d, COLUMNS));
    },
  },
];
