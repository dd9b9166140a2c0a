import { table } from '../output';
import { LIMIT, type CommandSpec } from '../command';

export const auditCommands: readonly CommandSpec[] = [
  {
    name: 'audit',
    usage: '[--limit N]',
    summary: 'operator actions, newest first (who changed what)',
    options: LIMIT,
    async run({ args, rpc, out }) {
      const c = rpc.operator;
      const res = await rpc.call(c, c.listAudit, { limit: args.int32('limit') ?? 0 });
      out.result(res, () => table(res.entries, ['at', 'actor', 'action', 'target', 'after_json']));
    },
  },
];
