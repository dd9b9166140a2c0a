import type { EntityManager } from '@mikro-orm/postgresql';
import { AuditEntry } from '../entities';
import type { Query } from '../raw-sql';

export interface AuditInput {
  readonly actor: string;
  readonly action: string;
  readonly target: string;
  readonly before: unknown;
  readonly after: unknown;
  readonly at: Date;
}

/** Every operator action: who, what, when, before/after — persisted with the action's own flush. */
export function recordAudit(em: EntityManager, entry: AuditInput): AuditEntry {
  const row = new AuditEntry(entry.actor, entry.action, entry.target, entry.before ?? null, entry.after ?? null, entry.at);
  em.persist(row);
  return row;
}

/** recordAudit on a raw connection inside the caller's transaction (RawSql.transaction): the row a flush would insert. */
export async function recordAuditSql(q: Query, entry: AuditInput): Promise<AuditEntry> {
  const row = new AuditEntry(entry.actor, entry.action, entry.target, entry.before ?? null, entry.after ?? null, entry.at);
  await q(
    'insert into audit_log (id, actor, action, target, "before", "after", at) values ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7::timestamptz)',
    [row.id, row.actor, row.action, row.target, row.before === null ? null : JSON.stringify(row.before), row.after === null ? null : JSON.stringify(row.after), row.at.toISOString()],
    'chainpay_audit_insert',
  );
  return row;
}
