import { Migration } from '@mikro-orm/migrations';

/**
 * The watcher's cursor becomes the family's own JSON (issue 33): `cursor` and `finalized` (jsonb)
 * replace height + hash and final_height + final_hash. Every cursor written so far is a block
 * family's, so it moves to that family's shape { height, hash } unchanged: the watcher resumes
 * from exactly the block it had processed, and the last final block is still checked at start.
 * Down: the block-shaped cursors move back (a cursor of another shape cannot, and stops the down).
 */
export class Migration20261128010000WatcherCursorJson extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "watcher_cursors" add column "cursor" jsonb null, add column "finalized" jsonb null;`);
    this.addSql(
      `update "watcher_cursors" set "cursor" = jsonb_build_object('height', "height", 'hash', "hash"),
         "finalized" = case when "final_height" is not null and "final_hash" is not null then jsonb_build_object('height', "final_height", 'hash', "final_hash") end;`,
    );
    this.addSql(`alter table "watcher_cursors" alter column "cursor" set not null;`);
    this.addSql(`alter table "watcher_cursors" drop column "height", drop column "hash", drop column "final_height", drop column "final_hash";`);
  }

  override async down(): Promise<void> {
    this.addSql(
      `alter table "watcher_cursors" add column "height" bigint null, add column "hash" varchar(128) null, add column "final_height" bigint null, add column "final_hash" varchar(128) null;`,
    );
    this.addSql(
      `update "watcher_cursors" set "height" = ("cursor"->>'height')::bigint, "hash" = "cursor"->>'hash',
         "final_height" = ("finalized"->>'height')::bigint, "final_hash" = "finalized"->>'hash';`,
    );
    this.addSql(`alter table "watcher_cursors" alter column "height" set not null, alter column "hash" set not null;`);
    this.addSql(`alter table "watcher_cursors" drop column "cursor", drop column "finalized";`);
  }
}
