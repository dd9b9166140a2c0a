import { Migration } from '@mikro-orm/migrations';

/**
 * The devnet chains move from each daemon's DATA_DIR/devnet/<NETWORK>.jsonl into the database, so
 * that daemons sharing one database share the chains too: after a failover the standby continues
 * the chains the active daemon's watchers followed (before, it replayed its own journal and its
 * watchers halted on a "reorg deeper than finality", or went back to an older head).
 *
 * - `devnet_chains`: a network's canonical head; every change moves it with a compare-and-swap.
 * - `devnet_blocks`: every block mined, canonical or orphaned; one canonical block per height.
 * - `devnet_transfers`: the token transfers of each block (found by tx hash for payout status).
 * - `devnet_mempool`: broadcast payouts waiting for the next block.
 * Rows are written by src/chains/devnet/pg-store.ts only. A journal of an older version is imported
 * at the daemon's first start on this schema (src/chains/devnet/legacy-journal.ts), not here.
 */
export class Migration20261127000000DevnetChains extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "devnet_chains" ("network" varchar(16) not null, "head_height" bigint not null, "head_hash" varchar(128) not null, "updated_at" timestamptz(3) not null, constraint "devnet_chains_pkey" primary key ("network"));`,
    );
    this.addSql(
      `create table "devnet_blocks" ("network" varchar(16) not null, "hash" varchar(128) not null, "height" bigint not null, "parent_hash" varchar(128) not null, "mined_at" timestamptz(3) not null, "canonical" boolean not null, constraint "devnet_blocks_pkey" primary key ("network", "hash"));`,
    );
    this.addSql(`create unique index "devnet_blocks_canonical_height" on "devnet_blocks" ("network", "height") where "canonical";`);
    this.addSql(
      `create table "devnet_transfers" ("network" varchar(16) not null, "block_hash" varchar(128) not null, "event_index" int not null, "tx_hash" varchar(128) not null, "from_address" varchar(128) not null, "to_address" varchar(128) not null, "to_key" varchar(128) not null, "amount" numeric not null, "memo" text null, "contract" varchar(128) not null, constraint "devnet_transfers_pkey" primary key ("network", "block_hash", "event_index"));`,
    );
    this.addSql(`create index "devnet_transfers_network_tx_hash_index" on "devnet_transfers" ("network", "tx_hash");`);
    this.addSql(
      `create table "devnet_mempool" ("network" varchar(16) not null, "tx_hash" varchar(128) not null, "position" bigint not null, "from_address" varchar(128) not null, "to_address" varchar(128) not null, "to_key" varchar(128) not null, "amount" numeric not null, "memo" text null, "contract" varchar(128) not null, constraint "devnet_mempool_pkey" primary key ("network", "tx_hash"));`,
    );
  }

  override async down(): Promise<void> {
    for (const table of ['devnet_mempool', 'devnet_transfers', 'devnet_blocks', 'devnet_chains']) this.addSql(`drop table if exists "${table}" cascade;`);
  }
}
