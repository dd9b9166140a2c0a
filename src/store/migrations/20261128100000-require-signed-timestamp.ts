import { Migration } from '@mikro-orm/migrations';

/**
 * A merchant can be set to require timestamped signatures (X-Service-Timestamp, docs/api.md
 * "Signing requests"); existing merchants keep the spec's rule (false).
 */
export class Migration20261128100000RequireSignedTimestamp extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "merchants" add column "require_signed_timestamp" boolean not null default false;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "merchants" drop column "require_signed_timestamp";`);
  }
}
