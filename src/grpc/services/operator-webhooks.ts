import { MalformedRequestError } from '../../domain/errors';
import type { WebhookEvent } from '../generated/chainpay/v1/operator';
import { recordAudit } from '../../store/repos/audit';
import { getWebhookEvent, listWebhookEvents, redeliverWebhookEvent, type WebhookEventView } from '../../webhooks/events';
import { unary } from '../handler';
import type { ServiceContext } from '../context';
import type { OperatorPiece } from './operator';
import { operatorIdentity } from './operator-audit';

export function toWebhookEventMessage(v: WebhookEventView): WebhookEvent {
  const e = v.event;
  return {
    id: e.id,
    type: e.type,
    merchant_id: e.merchantId,
    aggregate_id: e.aggregateId,
    status: e.status,
    attempts: e.attempts,
    next_attempt_at: e.status === 'pending' ? e.nextAttemptAt.toISOString() : undefined,
    created_at: e.createdAt.toISOString(),
    target_url: v.target ?? undefined,
    deliveries: v.deliveries.map((d) => ({
      attempt: d.attempt,
      at: d.at.toISOString(),
      status_code: d.statusCode ?? undefined,
      latency_ms: d.latencyMs,
      error: d.error ?? undefined,
    })),
  };
}

/** ListWebhooks and RedeliverWebhook (operator token; `chainpay webhooks list|redeliver`). */
export function operatorWebhooks(ctx: ServiceContext, webhooks: { kick(): void }): OperatorPiece {
  return {
    listWebhooks: unary(ctx.logger, 'ListWebhooks', async (call) => {
      ctx.auth.operator(call.metadata);
      const r = call.request;
      const views = await listWebhookEvents(ctx.orm.em.fork(), { merchantId: r.merchant_id, status: r.status, limit: r.limit });
      return { events: views.map(toWebhookEventMessage) };
    }),
    redeliverWebhook: unary(ctx.logger, 'RedeliverWebhook', async (call) => {
      const actor = operatorIdentity(ctx, call.metadata);
      const id = call.request.event_id?.trim();
      if (!id) throw new MalformedRequestError('event_id is required', 'event_id', 'missing_field');
      const em = ctx.orm.em.fork();
      await em.transactional(async (tx) => {
        const now = ctx.clock.now();
        const { before, event } = await redeliverWebhookEvent(tx, id, now);
        recordAudit(tx, { actor, action: 'webhook.redeliver', target: `webhook_event:${id}`, before, after: { status: event.status, attempts: event.attempts }, at: now });
      });
      ctx.logger.info({ eventId: id }, 'webhook queued for redelivery');
      webhooks.kick();
      return toWebhookEventMessage(await getWebhookEvent(ctx.orm.em.fork(), id));
    }),
  };
}
