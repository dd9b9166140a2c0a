import { Migration } from '@mikro-orm/migrations';

/**
 * The merchant's event log (GET /v1/events, src/webhooks/event-log.ts) orders events by the
 * transaction that wrote them, then by `seq`. `seq` alone cannot be read as a log: a bigserial is
 * taken at INSERT, not at COMMIT, so a transaction that commits late makes its lower seq appear
 * behind a reader that already moved past it. `tx_id` is the writing transaction's id, filled by
 * the column default on every insert path (the entity never sends it); the log returns only rows
 * whose transaction is below the snapshot's xmin, i.e. finished, so nothing can commit behind a
 * cursor any more. Existing rows all get this migration's xid (they are finished already) and stay
 * in seq order among themselves.
 */
export class Migration20261129000000OutboxTxOrder extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "outbox_events" add column "tx_id" xid8 not null default pg_current_xact_id();`);
    this.addSql(`create index "outbox_events_merchant_id_tx_id_seq_index" on "outbox_events" ("merchant_id", "tx_id", "seq");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "outbox_events_merchant_id_tx_id_seq_index";`);
    this.addSql(`alter table "outbox_events" drop column if exists "tx_id";`);
  }
}
