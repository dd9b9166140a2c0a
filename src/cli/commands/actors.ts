import type { ActorDetail, ActorEvent } from '../../grpc/generated/chainpay/v1/operator';
import { fields, table } from '../output';
import { LIMIT, type CommandSpec } from '../command';

const KINDS = ['invoice', 'withdrawal', 'watcher'] as const;

/** JSON text from the daemon, indented for reading; shown raw if it is not JSON. */
function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

function showActor(d: ActorDetail): string {
  const head = fields({ ...d.summary, persisted_at: d.persisted_at }, ['kind', 'id', 'status', 'network', 'updated_at', 'persisted_at']);
  return [
    head,
    `\nstate:\n${pretty(d.state_value_json)}`,
    `\ncontext:\n${pretty(d.context_json)}`,
    `\npending timers:\n${d.pending_timers.length ? d.pending_timers.join('\n') : '(none)'}`,
    `\nlast events:\n${table(d.last_events, ['at', 'type', 'payload_json'])}`,
  ].join('\n');
}

const eventLine = (e: ActorEvent): string => `${e.at} ${e.kind}/${e.id}${e.network ? ` [${e.network}]` : ''} ${e.type} ${e.payload_json}`;

export const actorCommands: readonly CommandSpec[] = [
  {
    name: 'actors list',
    usage: '[--kind invoice|withdrawal|watcher] [--status S] [--limit N]',
    summary: 'list live actors',
    options: { kind: { type: 'string' }, status: { type: 'string' }, ...LIMIT },
    async run({ args, rpc, out }) {
      const c = rpc.operator;
      const res = await rpc.call(c, c.listActors, { kind: args.choice('kind', KINDS), status: args.opt('status'), limit: args.int32('limit') ?? 0 });
      out.result(res, () => table(res.actors, ['kind', 'id', 'status', 'network', 'updated_at']));
    },
  },
  {
    name: 'actors show',
    usage: 'ID',
    summary: "one actor's state, context, pending timers and last events",
    positionals: ['ID'],
    async run({ args, rpc, out }) {
      const c = rpc.operator;
      const d = await rpc.call(c, c.showActor, { id: args.pos(0) });
      out.result(d, () => showActor(d));
    },
  },
  {
    name: 'actors watch',
    usage: '[--kind K] [--id ID] [--network CODE]',
    summary: 'stream actor events as they happen (one JSON line per event with --json)',
    options: { kind: { type: 'string' }, id: { type: 'string' }, network: { type: 'string' } },
    async run({ args, rpc, out, io }) {
      const c = rpc.operator;
      const req = { kind: args.choice('kind', KINDS), id: args.opt('id'), network: args.opt('network') };
      await rpc.stream(c, c.watchActors, req, (e) => out.update(e, () => eventLine(e)), { signal: io.signal });
    },
  },
];
