import type { Withdrawal } from '../../grpc/generated/chainpay/v1/withdrawals';
import { fields, table } from '../output';
import { LIMIT, type CommandSpec } from '../command';

const WITHDRAWAL_FIELDS = [
  'uuid',
  'merchant_id',
  'reference',
  'status',
  'network',
  'address',
  'amount',
  'network_fee',
  'net_payout',
  'tx_hash',
  'confirmations',
  'rejection_reason',
  'failure_reason',
  'created_at',
  'completed_at',
] as const;

const showWithdrawal = (w: Withdrawal): string => fields(w, WITHDRAWAL_FIELDS);

export const withdrawalCommands: readonly CommandSpec[] = [
  {
    name: 'withdrawals list',
    usage: '[--merchant ID] [--status S] [--limit N]',
    summary: 'list withdrawals (all merchants unless --merchant), e.g. --status review',
    options: { merchant: { type: 'string' }, status: { type: 'string' }, ...LIMIT },
    async run({ args, rpc, out }) {
      const c = rpc.withdrawals;
      const merchant = args.opt('merchant');
      const req = { merchant_id: merchant ?? '', status: args.opt('status'), limit: args.int32('limit') ?? 0 };
      const res = await rpc.call(c, c.listWithdrawals, req, { 'x-merchant-id': merchant });
      out.result(res, () => table(res.withdrawals, ['uuid', 'merchant_id', 'status', 'network', 'amount', 'net_payout', 'address', 'created_at']));
    },
  },
  {
    name: 'withdrawals show',
    usage: 'UUID',
    summary: 'show one withdrawal',
    positionals: ['UUID'],
    async run({ args, rpc, out }) {
      const c = rpc.withdrawals;
      const w = await rpc.call(c, c.getWithdrawal, { uuid: args.pos(0) });
      out.result(w, () => showWithdrawal(w));
    },
  },
  {
    name: 'withdrawals approve',
    usage: 'UUID',
    summary: 'approve a withdrawal held in review (it moves to processing)',
    positionals: ['UUID'],
    async run({ args, rpc, out }) {
      const c = rpc.operator;
      const w = await rpc.call(c, c.approveWithdrawal, { uuid: args.pos(0) });
      out.result(w, () => showWithdrawal(w));
    },
  },
  {
    name: 'withdrawals reject',
    usage: 'UUID --reason R',
    summary: 'reject a withdrawal held in review; the held amount returns to the balance',
    positionals: ['UUID'],
    options: { reason: { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const c = rpc.operator;
      const w = await rpc.call(c, c.rejectWithdrawal, { uuid: args.pos(0), reason: args.str('reason') });
      out.result(w, () => showWithdrawal(w));
    },
  },
];
