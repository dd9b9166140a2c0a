import type { WatcherStatus } from '../../grpc/generated/chainpay/v1/operator';
import { fields, table } from '../output';
import type { CommandSpec, CommandContext } from '../command';

const COLUMNS = ['network', 'state', 'chain_mode', 'head', 'cursor', 'lag_blocks', 'lag_seconds', 'watched_addresses', 'rpc_healthy', 'address_pool', 'last_error'] as const;
const show = (w: WatcherStatus): string => fields(w, [...COLUMNS, 'paused', 'last_error_at', 'address_pool_error']);

async function toggle({ args, rpc, out }: CommandContext, op: 'pause' | 'resume'): Promise<void> {
  const c = rpc.operator;
  const w = await rpc.call(c, op === 'pause' ? c.pauseWatcher : c.resumeWatcher, { network: args.str('network') });
  out.result(w, () => show(w));
}

export const watcherCommands: readonly CommandSpec[] = [
  {
    name: 'watchers',
    usage: '[--network CODE]',
    summary: 'chain watchers: head, cursor, lag, state',
    options: { network: { type: 'string' } },
    async run({ args, rpc, out }) {
      const c = rpc.operator;
      const res = await rpc.call(c, c.listWatchers, {});
      const network = args.opt('network');
      const doc = network === undefined ? res : { watchers: res.watchers.filter((w) => w.network === network) };
      out.result(doc, () => table(doc.watchers, COLUMNS));
    },
  },
  {
    name: 'watchers pause',
    usage: '--network CODE',
    summary: 'stop scanning a network (invoices on it wait; nothing is lost)',
    options: { network: { type: 'string', required: true } },
    run: (ctx) => toggle(ctx, 'pause'),
  },
  {
    name: 'watchers resume',
    usage: '--network CODE',
    summary: 'resume scanning a network from its cursor',
    options: { network: { type: 'string', required: true } },
    run: (ctx) => toggle(ctx, 'resume'),
  },
  {
    name: 'watchers rescan',
    usage: '--network CODE --from HEIGHT',
    summary: 'rescan a network from a block height (payments are counted once)',
    options: { network: { type: 'string', required: true }, from: { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const c = rpc.operator;
      const w = await rpc.call(c, c.rescanWatcher, { network: args.str('network'), from_height: args.int64('from') ?? '0' });
      out.result(w, () => show(w));
    },
  },
];
