import type { Metadata } from '@grpc/grpc-js';
import { EventServiceService, type EventServiceServer } from '../generated/chainpay/v1/events';
import { encodeEventCursor, parseEventLogQuery } from '../../domain/event-log-query';
import { BodyFields } from '../../domain/request-fields';
import { RawSql } from '../../store/raw-sql';
import { readEventLog } from '../../webhooks/event-log';
import { redeliverMerchantEvent } from '../../webhooks/events';
import { pingWebhook } from '../../webhooks/ping';
import type { SendOptions } from '../../webhooks/send';
import type { MerchantCaller } from '../auth';
import { stopIfCancelled } from '../call-cancelled';
import type { ServiceContext } from '../context';
import { unary } from '../handler';
import { requestBody } from '../request-body';
import { operatorIdentity } from './operator-audit';

/** POST /v1/events/{id}/redeliver and POST /v1/webhooks/test take an empty JSON object. */
const EMPTY_BODY = new BodyFields([]);

export interface EventServiceDeps {
  /** The dispatcher: a redelivered event is looked for at once. */
  readonly webhooks: { kick(): void };
  /** The dispatcher's address guard and trust settings, for the ping. */
  readonly send: Omit<SendOptions, 'signal' | 'timeoutMs'>;
}

/** Who redelivered, for the audit log: the merchant itself, the platform's service token, or an operator. */
function actorOf(ctx: ServiceContext, caller: MerchantCaller & { merchantId: string }, md: Metadata): string {
  if (caller.via === 'signature') return `merchant:${caller.merchantId}`;
  return caller.via === 'operator' ? operatorIdentity(ctx, md) : 'service';
}

/** The merchant's event log, redelivery and test ping (proto/chainpay/v1/events.proto). */
export function eventService(ctx: ServiceContext, deps: EventServiceDeps): { definition: typeof EventServiceService; implementation: EventServiceServer } {
  const sql = new RawSql(ctx.orm);
  const implementation: EventServiceServer = {
    listEvents: unary(ctx.logger, 'ListEvents', async (call) => {
      const caller = await ctx.auth.merchantRequired(call.metadata);
      const query = parseEventLogQuery(call.request.query);
      const page = await readEventLog(sql.query, caller.merchantId, query);
      return {
        events: page.events.map((e) => ({ id: e.id, type: e.type, body_json: e.body, cursor: encodeEventCursor(e.position) })),
        next_cursor: encodeEventCursor(page.next),
        has_more: page.hasMore,
      };
    }),
    redeliverEvent: unary(ctx.logger, 'RedeliverEvent', async (call) => {
      const caller = await ctx.auth.merchantRequired(call.metadata);
      EMPTY_BODY.assertKnown(requestBody(caller, () => ({})));
      stopIfCancelled(call, 'RedeliverEvent');
      const input = { merchantId: caller.merchantId, id: call.request.id, actor: actorOf(ctx, caller, call.metadata), now: ctx.clock.now() };
      const event = await redeliverMerchantEvent(ctx.orm.em.fork(), input);
      ctx.logger.info({ eventId: event.id, merchantId: caller.merchantId }, 'webhook queued for redelivery by the merchant');
      deps.webhooks.kick();
      return { id: event.id, type: event.type, status: event.status };
    }),
    testWebhook: unary(ctx.logger, 'TestWebhook', async (call) => {
      const caller = await ctx.auth.merchantRequired(call.metadata);
      EMPTY_BODY.assertKnown(requestBody(caller, () => ({})));
      const merchant = await ctx.merchants.getWithSecrets(ctx.orm.em.fork(), caller.merchantId);
      const result = await pingWebhook(merchant, { send: deps.send, openSecret: (sealed) => ctx.merchants.openSecret(sealed), now: ctx.clock.now() });
      return {
        delivered: result.delivered,
        url: result.url,
        status_code: result.statusCode ?? undefined,
        latency_ms: result.latencyMs,
        error: result.error ?? undefined,
        event_json: result.body,
      };
    }),
  };
  return { definition: EventServiceService, implementation };
}
