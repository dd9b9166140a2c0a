import type { WebhookEvent } from '../../grpc/generated/chainpay/v1/operator';
import { fields, table } from '../output';
import { LIMIT, type CommandSpec } from '../command';

function showEvent(e: WebhookEvent): string {
  const head = fields(e, ['id', 'type', 'merchant_id', 'aggregate_id', 'status', 'attempts', 'next_attempt_at', 'target_url', 'created_at']);
  return `${head}\n\ndeliveries:\n${table(e.deliveries, ['attempt', 'at', 'status_code', 'latency_ms', 'error'])}`;
}

export const webhookCommands: readonly CommandSpec[] = [
  {
    name: 'webhooks list',
    usage: '[--merchant ID] [--status pending|delivered|failed|unaddressed] [--limit N]',
    summary: 'webhook events in the outbox, each with its delivery log',
    options: { merchant: { type: 'string' }, status: { type: 'string' }, ...LIMIT },
    async run({ args, rpc, out }) {
      const c = rpc.operator;
      const req = { merchant_id: args.opt('merchant'), status: args.opt('status'), limit: args.int32('limit') ?? 0 };
      const res = await rpc.call(c, c.listWebhooks, req);
      // Each event with its delivery log (attempt, time, status code, latency, error), newest event first.
      out.result(res, () => (res.events.length === 0 ? '(none)' : res.events.map(showEvent).join('\n\n')));
    },
  },
  {
    name: 'webhooks redeliver',
    usage: 'EVENT_ID',
    summary: 'queue an event for delivery again (e.g. after it failed, or once an unaddressed event has a URL)',
    positionals: ['EVENT_ID'],
    async run({ args, rpc, out }) {
      const c = rpc.operator;
      const e = await rpc.call(c, c.redeliverWebhook, { event_id: args.pos(0) });
      out.result(e, () => showEvent(e));
    },
  },
];
