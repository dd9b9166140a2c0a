import type { EntityManager } from '@mikro-orm/postgresql';
import { AuditEntry } from '../entities';

/** Every operator action: who, what, when, before/after — persisted with the action's own flush. */
export function recordAudit(em: EntityManager, entry: { actor: string; action: string; target: string; before: unknown; after: unknown; at: Date }): AuditEntry {
  const row = new AuditEntry(entry.actor, entry.action, entry.target, entry.before ?? null, entry.after ?? null, entry.at);
  em.persist(row);
  return row;
}
