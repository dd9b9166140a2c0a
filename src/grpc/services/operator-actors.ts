import type { ServerWritableStream } from '@grpc/grpc-js';
import { MalformedRequestError } from '../../domain/errors';
import { ACTOR_KINDS, type ActorActivityRecord, type ActorKind } from '../../actors/introspection/activity';
import type { ActorDirectory, ActorSummaryView } from '../../actors/introspection/actor-directory';
import type { ActorEvent, ActorSummary, WatchActorsRequest } from '../generated/chainpay/v1/operator';
import { serverStream, unary } from '../handler';
import type { ServiceContext } from '../context';
import type { OperatorPiece } from './operator';

function kindOf(raw: string | undefined): ActorKind | undefined {
  const kind = raw?.trim().toLowerCase();
  if (!kind) return undefined;
  if (!(ACTOR_KINDS as readonly string[]).includes(kind)) throw new MalformedRequestError(`kind must be one of ${ACTOR_KINDS.join(', ')}`, 'kind', 'invalid_kind');
  return kind as ActorKind;
}

function summary(a: ActorSummaryView): ActorSummary {
  return { kind: a.kind, id: a.id, status: a.status, network: a.network ?? undefined, updated_at: a.updatedAt?.toISOString() ?? '' };
}

/** JSON text that never throws (bigint as string, cycles cut). */
function json(value: unknown): string {
  const seen = new WeakSet<object>();
  return JSON.stringify(value ?? null, (_k, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (v && typeof v === 'object') {
      if (seen.has(v)) return '[circular]';
      seen.add(v);
    }
    return v;
  });
}

export function toActorEvent(r: ActorActivityRecord): ActorEvent {
  return { kind: r.kind, id: r.id, network: r.network ?? undefined, type: r.type, payload_json: json(r.payload), at: r.at.toISOString() };
}

/**
 * ListActors, ShowActor, WatchActors (`chainpay actors list|show|watch`). The stream sends every
 * event an actor receives and every committed change, as they happen, until the client cancels
 * or the daemon stops (`closing`).
 */
export function operatorActors(ctx: ServiceContext, directory: ActorDirectory, closing: AbortSignal): OperatorPiece {
  return {
    listActors: unary(ctx.logger, 'ListActors', async (call) => {
      ctx.auth.operator(call.metadata);
      const limit = Math.min(Math.max(call.request.limit || 100, 1), 1000);
      const actors = await directory.list({ kind: kindOf(call.request.kind), status: call.request.status?.trim() || undefined, limit });
      return { actors: actors.map(summary) };
    }),
    showActor: unary(ctx.logger, 'ShowActor', async (call) => {
      ctx.auth.operator(call.metadata);
      if (!call.request.id?.trim()) throw new MalformedRequestError('id is required', 'id', 'missing_field');
      const d = await directory.show(call.request.id);
      return {
        summary: summary(d.summary),
        state_value_json: json(d.stateValue),
        context_json: json(d.context),
        pending_timers: d.pendingTimers,
        last_events: d.lastEvents.map(toActorEvent),
        persisted_at: d.persistedAt?.toISOString(),
      };
    }),
    watchActors: serverStream(ctx.logger, 'WatchActors', async (call: ServerWritableStream<WatchActorsRequest, ActorEvent>) => {
      ctx.auth.operator(call.metadata);
      const kind = kindOf(call.request.kind);
      const id = call.request.id?.trim().toLowerCase() || undefined;
      const network = call.request.network?.trim().toUpperCase() || undefined;
      if (closing.aborted) return;
      await new Promise<void>((resolve) => {
        const sources = directory.activities().filter((a) => !kind || a.kind === kind);
        const unsubscribe = sources.map((source) =>
          source.subscribe((r) => {
            if (id && r.id.toLowerCase() !== id) return;
            if (network && r.network?.toUpperCase() !== network) return;
            if (!call.cancelled) call.write(toActorEvent(r));
          }),
        );
        const finish = (): void => {
          for (const off of unsubscribe) off();
          closing.removeEventListener('abort', finish);
          resolve();
        };
        call.on('cancelled', finish);
        call.on('close', finish);
        closing.addEventListener('abort', finish);
      });
    }),
  };
}
