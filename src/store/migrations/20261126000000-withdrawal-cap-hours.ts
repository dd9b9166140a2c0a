import { Migration } from '@mikro-orm/migrations';

/**
 * The rolling daily cap without reading every withdrawal of the day (src/actors/withdrawals/creation-sql.ts,
 * UNDER_LOCK). Before, each creating transaction summed every withdrawal of its merchant created in
 * the last 24 hours, under the merchant's lock: a busy merchant's creations cost more the more it
 * had paid out that day (~2 ms a read at ~4,000 rows, bench scenario 6, pg_stat_statements).
 *
 * - `withdrawal_cap_hours`: per merchant and UTC hour, the gross amount of the withdrawals created
 *   in that hour, in any status. Kept by triggers on withdrawals, so no writer can forget it: one
 *   aggregated upsert per INSERT statement (the creating transaction inserts a whole batch in one
 *   statement, under the merchants' row locks, so no two transactions write one merchant's hours at
 *   once), the same in reverse per DELETE statement (nothing deletes withdrawals; kept exact
 *   anyway), emptied with a TRUNCATE of withdrawals. `amount`, `created_at` and `merchant_id` never
 *   change after insert; an UPDATE of them is refused, as it would make the sums wrong.
 * - A status change needs no write here: rejected and failed withdrawals are subtracted when read,
 *   from a partial index that holds only them. So actors that fail or reject a withdrawal take no
 *   lock on these rows (a hold released on the balance and an hour row locked in the other order
 *   than the creating transaction would be a deadlock).
 *
 * The table is filled from the withdrawals already stored, with withdrawals locked against writers
 * for that moment (another daemon on the old code inserting meanwhile would be missed otherwise).
 */
export class Migration20261126000000WithdrawalCapHours extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "withdrawal_cap_hours" ("merchant_id" uuid not null, "hour" timestamptz(0) not null, "used" numeric(38,18) not null, constraint "withdrawal_cap_hours_pkey" primary key ("merchant_id", "hour"));`,
    );
    this.addSql(`create index "withdrawals_refused_cap_index" on "withdrawals" ("merchant_id", "created_at") include ("amount") where "status" in ('rejected', 'failed');`);
    this.addSql(`lock table "withdrawals" in share row exclusive mode;`);
    this.addSql(`insert into "withdrawal_cap_hours" ("merchant_id", "hour", "used")
      select "merchant_id", date_trunc('hour', "created_at", 'UTC'), sum("amount") from "withdrawals" group by 1, 2;`);
    this.addSql(`create function "withdrawal_cap_hours_add"() returns trigger language plpgsql as $$
      begin
        insert into withdrawal_cap_hours (merchant_id, hour, used)
        select merchant_id, date_trunc('hour', created_at, 'UTC'), sum(amount) from added group by 1, 2
            on conflict (merchant_id, hour) do update set used = withdrawal_cap_hours.used + excluded.used;
        return null;
      end $$;`);
    this.addSql(`create function "withdrawal_cap_hours_remove"() returns trigger language plpgsql as $$
      begin
        update withdrawal_cap_hours h set used = h.used - r.amount
          from (select merchant_id, date_trunc('hour', created_at, 'UTC') as hour, sum(amount) as amount from removed group by 1, 2) r
         where h.merchant_id = r.merchant_id and h.hour = r.hour;
        return null;
      end $$;`);
    this.addSql(`create function "withdrawal_cap_hours_clear"() returns trigger language plpgsql as $$
      begin
        truncate withdrawal_cap_hours;
        return null;
      end $$;`);
    this.addSql(`create function "withdrawal_cap_fields_fixed"() returns trigger language plpgsql as $$
      begin
        raise exception 'a withdrawal''s merchant_id, amount and created_at never change (withdrawal_cap_hours sums them)' using errcode = '55000';
      end $$;`);
    this.addSql(`create trigger "withdrawals_cap_hours_add" after insert on "withdrawals" referencing new table as added for each statement execute function "withdrawal_cap_hours_add"();`);
    this.addSql(`create trigger "withdrawals_cap_hours_remove" after delete on "withdrawals" referencing old table as removed for each statement execute function "withdrawal_cap_hours_remove"();`);
    this.addSql(`create trigger "withdrawals_cap_hours_clear" after truncate on "withdrawals" for each statement execute function "withdrawal_cap_hours_clear"();`);
    this.addSql(`create trigger "withdrawals_cap_fields_fixed" before update of "merchant_id", "amount", "created_at" on "withdrawals"
      for each row when (old."merchant_id" is distinct from new."merchant_id" or old."amount" is distinct from new."amount" or old."created_at" is distinct from new."created_at")
      execute function "withdrawal_cap_fields_fixed"();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop trigger if exists "withdrawals_cap_fields_fixed" on "withdrawals";`);
    this.addSql(`drop trigger if exists "withdrawals_cap_hours_clear" on "withdrawals";`);
    this.addSql(`drop trigger if exists "withdrawals_cap_hours_remove" on "withdrawals";`);
    this.addSql(`drop trigger if exists "withdrawals_cap_hours_add" on "withdrawals";`);
    this.addSql(`drop function if exists "withdrawal_cap_fields_fixed"();`);
    this.addSql(`drop function if exists "withdrawal_cap_hours_clear"();`);
    this.addSql(`drop function if exists "withdrawal_cap_hours_remove"();`);
    this.addSql(`drop function if exists "withdrawal_cap_hours_add"();`);
    this.addSql(`drop index if exists "withdrawals_refused_cap_index";`);
    this.addSql(`drop table if exists "withdrawal_cap_hours";`);
  }
}
