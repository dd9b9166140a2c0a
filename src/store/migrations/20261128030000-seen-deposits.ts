import { Migration } from '@mikro-orm/migrations';

/**
 * The watcher's record of each transfer naming an invoice (issue 33: the deposit path runs one way).
 * Written with the cursor; `decided` once the invoice's commit took or refused it.
 */
export class Migration20261128030000SeenDeposits extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "seen_deposits" ("network" varchar(16) not null, "tx_hash" varchar(128) not null, "event_index" int not null, "invoice_uuid" uuid not null, "from_address" varchar(128) not null, "to_address" varchar(128) not null, "memo" varchar(128) null, "amount" numeric(38,18) not null, "block_height" bigint not null, "block_hash" varchar(128) not null, "block_time" timestamptz(3) not null, "confirmations" int not null, "decided" boolean not null default false, "seen_at" timestamptz(3) not null, constraint "seen_deposits_pkey" primary key ("network", "tx_hash", "event_index"));`,
    );
    this.addSql(`create index "seen_deposits_network_decided_index" on "seen_deposits" ("network", "decided");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "seen_deposits";`);
  }
}
