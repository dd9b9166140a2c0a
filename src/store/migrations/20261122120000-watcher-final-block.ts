import { Migration } from '@mikro-orm/migrations';

/**
 * The watcher persists the last final block with its cursor: at start the chain must still hold it,
 * otherwise a reorg deeper than finality happened while the daemon was down and the watcher halts.
 */
export class Migration20261122120000WatcherFinalBlock extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "watcher_cursors" add column "final_height" bigint null, add column "final_hash" varchar(128) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "watcher_cursors" drop column "final_hash", drop column "final_height";`);
  }
}
