import type { Metadata } from '@grpc/grpc-js';
import { AuditEntry } from '../../store/entities';
import { recordAudit } from '../../store/repos/audit';
import type { AuditEntry as AuditEntryMessage } from '../generated/chainpay/v1/operator';
import { unary } from '../handler';
import type { ServiceContext } from '../context';
import type { OperatorPiece } from './operator';

/**
 * Who is acting: the operator token, plus the name the client gives in `x-operator-name`
 * (e.g. the CLI user) so the audit log says who did it when several people share the token.
 */
export function operatorIdentity(ctx: ServiceContext, md: Metadata): string {
  const role = ctx.auth.operator(md);
  const raw = md.get('x-operator-name')[0];
  const name = (typeof raw === 'string' ? raw : raw?.toString('utf8'))
    ?.trim()
    .replace(/[^\w.@ -]/g, '')
    .slice(0, 100);
  return name ? `${role}:${name}` : role;
}

/** One audited operator action in its own transaction (actions without a transaction of their own). */
export async function auditAction(ctx: ServiceContext, entry: { actor: string; action: string; target: string; before: unknown; after: unknown }): Promise<void> {
  await ctx.orm.em.fork().transactional(async (em) => {
    recordAudit(em, { ...entry, at: ctx.clock.now() });
  });
}

function toMessage(e: AuditEntry): AuditEntryMessage {
  return { id: e.id, actor: e.actor, action: e.action, target: e.target, before_json: JSON.stringify(e.before ?? null), after_json: JSON.stringify(e.after ?? null), at: e.at.toISOString() };
}

/** ListAudit (`chainpay audit`): operator actions, newest first. */
export function operatorAudit(ctx: ServiceContext): OperatorPiece {
  return {
    listAudit: unary(ctx.logger, 'ListAudit', async (call) => {
      ctx.auth.operator(call.metadata);
      const limit = Math.min(Math.max(call.request.limit || 100, 1), 1000);
      const rows = await ctx.orm.em.fork().find(AuditEntry, {}, { orderBy: { at: 'desc', id: 'asc' }, limit });
      return { entries: rows.map(toMessage) };
    }),
  };
}
