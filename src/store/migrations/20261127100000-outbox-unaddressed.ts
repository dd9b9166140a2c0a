import { Migration } from '@mikro-orm/migrations';

/**
 * Outbox status `unaddressed` (src/webhooks/delivery.ts, keepUnaddressedEvents): an event that had
 * no webhook URL when it was due is kept, not failed, since a merchant without a URL polls. Before,
 * such an event was marked failed with one attempt `no webhook URL`; those whose last attempt was
 * that one become `unaddressed` (their attempt rows stay, as history), so failed-event figures and
 * the alerts on them count real delivery failures only. An event that later failed against a URL
 * stays failed.
 */
export class Migration20261127100000OutboxUnaddressed extends Migration {
  override async up(): Promise<void> {
    this.addSql(`update "outbox_events" e set "status" = 'unaddressed'
      where e."status" = 'failed'
        and (select w."error" from "webhook_attempts" w where w."event_id" = e."id" order by w."attempt" desc limit 1) = 'no webhook URL';`);
  }

  override async down(): Promise<void> {
    this.addSql(`update "outbox_events" set "status" = 'failed' where "status" = 'unaddressed';`);
  }
}
