import { fields, table } from '../output';
import type { CommandSpec, CommandContext } from '../command';
import type { WhitelistEntry } from '../../grpc/generated/chainpay/v1/withdrawals';

const COLUMNS = ['merchant_id', 'network', 'address', 'added_at', 'usable_at', 'memo'] as const;
const ENTRY_OPTIONS = {
  merchant: { type: 'string', required: true },
  network: { type: 'string', required: true },
  address: { type: 'string', required: true },
} as const;

/** Whitelist calls sit on the merchant-facing WithdrawalService; the merchant rides in the message and as `x-merchant-id`. */
async function change(ctx: CommandContext, op: 'add' | 'remove'): Promise<void> {
  const { args, rpc, out } = ctx;
  const c = rpc.withdrawals;
  const memo = op === 'add' ? args.opt('memo') : undefined;
  const req = { merchant_id: args.str('merchant'), network: args.str('network'), address: args.str('address'), ...(memo !== undefined ? { memo } : {}) };
  const method = op === 'add' ? c.addWhitelist : c.removeWhitelist;
  const entry: WhitelistEntry = await rpc.call(c, method, req, { 'x-merchant-id': req.merchant_id });
  out.result(entry, () => fields(entry, COLUMNS));
}

export const whitelistCommands: readonly CommandSpec[] = [
  {
    name: 'whitelist add',
    usage: '--merchant ID --network CODE --address ADDR [--memo M]',
    summary: 'whitelist a payout address (usable after the 24 h cooldown); TON: --memo, the comment its payouts carry (an exchange deposit memo)',
    options: { ...ENTRY_OPTIONS, memo: { type: 'string' } },
    run: (ctx) => change(ctx, 'add'),
  },
  {
    name: 'whitelist remove',
    usage: '--merchant ID --network CODE --address ADDR',
    summary: 'remove a payout address from the whitelist',
    options: ENTRY_OPTIONS,
    run: (ctx) => change(ctx, 'remove'),
  },
  {
    name: 'whitelist list',
    usage: '--merchant ID [--network CODE]',
    summary: "list a merchant's whitelisted payout addresses",
    options: { merchant: { type: 'string', required: true }, network: { type: 'string' } },
    async run({ args, rpc, out }) {
      const c = rpc.withdrawals;
      const merchant = args.str('merchant');
      const res = await rpc.call(c, c.listWhitelist, { merchant_id: merchant, network: args.opt('network') }, { 'x-merchant-id': merchant });
      out.result(res, () => table(res.entries, COLUMNS));
    },
  },
];
