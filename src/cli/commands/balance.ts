import { fields } from '../output';
import type { CommandSpec } from '../command';

export const balanceCommands: readonly CommandSpec[] = [
  {
    name: 'balance',
    usage: '--merchant ID',
    summary: "a merchant's ledger balance: available and held (pending payouts)",
    options: { merchant: { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const c = rpc.merchants;
      const merchant = args.str('merchant');
      const b = await rpc.call(c, c.getBalance, { merchant_id: merchant }, { 'x-merchant-id': merchant });
      out.result(b, () => fields(b, ['merchant_id', 'available', 'held', 'currency']));
    },
  },
];
