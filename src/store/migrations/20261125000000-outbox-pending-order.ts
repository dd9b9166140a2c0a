import { Migration } from '@mikro-orm/migrations';

/**
 * The oldest pending event of an aggregate (the dispatcher's order rule, src/webhooks/delivery.ts
 * OLDEST_PENDING) from a partial index of the pending events only. Without it PostgreSQL combined
 * the (aggregate_id, seq) index with (status, next_attempt_at), reading the index entries of EVERY
 * pending event for each candidate it checked: ~1.2 M index entries per burst of 1,000
 * withdrawals (pg_stat_user_indexes), and more the longer the outbox's backlog.
 */
export class Migration20261125000000OutboxPendingOrder extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "outbox_events_pending_aggregate_seq_index" on "outbox_events" ("aggregate_id", "seq") where "status" = 'pending';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "outbox_events_pending_aggregate_seq_index";`);
  }
}
