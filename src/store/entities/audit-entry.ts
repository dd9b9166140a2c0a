import { randomUUID } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';

/** Who did what, when, with the state before and after. Written in the action's transaction. */
export class AuditEntry {
  id: string = randomUUID();
  constructor(
    public actor: string,
    public action: string,
    public target: string,
    public before: unknown,
    public after: unknown,
    public at: Date,
  ) {}
}

export const AuditEntrySchema = new EntitySchema<AuditEntry>({
  class: AuditEntry,
  tableName: 'audit_log',
  indexes: [{ properties: ['at'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    actor: { type: 'string', length: 200 },
    action: { type: 'string', length: 80 },
    target: { type: 'string', length: 200 },
    before: { type: 'json', nullable: true },
    after: { type: 'json', nullable: true },
    at: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});
