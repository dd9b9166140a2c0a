import { Migration } from '@mikro-orm/migrations';

/**
 * Invoice snapshots written before the chain-time rule have no `context.chainTime`. The daemon
 * used to patch them while restoring (an invoice with a network then waited for its watcher like
 * a new one: its chain time started at the machine's now, `observedAt`); the machine must not be
 * patched by the host, so the stored snapshots get that value once, here. Without a network (or
 * closed) nothing waits for a chain: left as they are (an absent chainTime reads as none).
 *
 * Down: nothing to undo. A chainTime the old code reads is one it would have set itself.
 */
export class Migration20261128000000InvoiceSnapshotChainTime extends Migration {
  override async up(): Promise<void> {
    this.addSql(`update "invoices"
      set "actor_snapshot" = jsonb_set("actor_snapshot", '{context,chainTime}', "actor_snapshot" -> 'context' -> 'observedAt')
      where "open" and "network" is not null
        and jsonb_typeof("actor_snapshot" -> 'context') = 'object'
        and not ("actor_snapshot" -> 'context' ? 'chainTime')
        and "actor_snapshot" -> 'context' ? 'observedAt';`);
  }

  override async down(): Promise<void> {
    // Intentionally empty (see above).
  }
}
