import { Migration } from '@mikro-orm/migrations';

/**
 * The expired payout watch (src/actors/withdrawals/expired-payout-watch.ts) reads, every minute, the
 * withdrawals re-signed after an expiry within the last day: a partial index on the re-signing time
 * of exactly those rows (few: an expiry is rare), so the pass never scans the withdrawals table.
 */
export class Migration20261129100000ExpiredPayoutWatch extends Migration {
  override async up(): Promise<void> {
    this.addSql(EXPIRED_PAYOUT_WATCH_INDEX);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "withdrawals_expired_versions_index";`);
  }
}

const EXPIRED_PAYOUT_WATCH_INDEX = `create index "withdrawals_expired_versions_index" on "withdrawals" ((("signed_meta"->>'signed_at_ms')::bigint)) where "signed_meta" ? 'expired_tx_hashes'`;
