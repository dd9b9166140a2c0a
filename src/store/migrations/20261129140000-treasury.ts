import { Migration } from '@mikro-orm/migrations';

/**
 * The treasury (issue 47, docs/treasury.md).
 *
 * 1. The ledger's per-network asset side is split (store/repos/ledger-accounts.ts). Before, it was
 *    `chain:<NET>:deposits` (credited deposits) plus `chain:<NET>:payouts` (what the hot wallet paid
 *    out). Nothing is rewritten: one journal per network (`ledger-split:<NET>`, idempotent by its
 *    reference) moves the payouts account's whole balance into deposits, so today's per-network
 *    asset balance becomes the deposits balance and every old entry stays as it was. Payouts book
 *    to `chain:<NET>:hot` from now on.
 * 2. `sweeps`: one row per address sweep, the sweep actor's persisted snapshot beside the signed
 *    transactions it stored before broadcasting them (a restart broadcasts those again, never signs
 *    anew). At most one open sweep per address (partial unique index): an address is swept once.
 *    `topup_wallet`/`topup_sequence` put the gas top-up's hot-wallet nonce in the same durable book
 *    as the payouts' (store/repos/payout-rows.ts highestOpenSequence).
 */
export class Migration20261129140000Treasury extends Migration {
  override async up(): Promise<void> {
    this.addSql(`with sums as (
        select split_part(account, ':', 2) as net, sum(amount) as s from ledger_entries
         where account like 'chain:%:payouts' group by 1 having sum(amount) <> 0
      ),
      j as (
        insert into journals (id, reference, kind, created_at)
        select gen_random_uuid(), 'ledger-split:' || net, 'ledger_split', now() from sums
        on conflict (reference) do nothing returning id, reference
      )
      insert into ledger_entries (id, journal_id, account, amount, merchant_id, created_at)
      select gen_random_uuid(), j.id, x.account, x.amount, null, now()
        from j join sums on j.reference = 'ledger-split:' || sums.net
        cross join lateral (values ('chain:' || sums.net || ':payouts', -sums.s), ('chain:' || sums.net || ':deposits', sums.s)) as x(account, amount);`);
    this.addSql(`create table "sweeps" (
        "id" uuid not null primary key,
        "network" varchar(20) not null,
        "address" varchar(128) not null,
        "derivation_index" int not null,
        "target" varchar(8) not null,
        "destination" varchar(128) not null,
        "amount" numeric(38,18) not null,
        "gas_topup" numeric(38,18) not null default 0,
        "state" varchar(24) not null,
        "outcome" varchar(16) null,
        "snapshot" jsonb null,
        "topup_raw" text null,
        "topup_tx_hash" varchar(130) null,
        "topup_meta" jsonb null,
        "topup_wallet" varchar(160) null,
        "topup_sequence" int null,
        "transfer_raw" text null,
        "transfer_tx_hash" varchar(130) null,
        "transfer_meta" jsonb null,
        "fee" numeric(38,18) null,
        "manual" boolean not null default false,
        "open" boolean not null default true,
        "error" text null,
        "created_at" timestamptz(3) not null,
        "updated_at" timestamptz(3) not null,
        constraint "sweeps_target_check" check ("target" in ('hot', 'cold')),
        constraint "sweeps_amount_positive" check ("amount" > 0)
      );`);
    this.addSql(`create unique index "sweeps_open_address" on "sweeps" ("network", "address") where "open";`);
    this.addSql(`create index "sweeps_topup_book" on "sweeps" ("topup_wallet") where "open" and "topup_raw" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "sweeps";`);
    this.addSql(`delete from ledger_entries where journal_id in (select id from journals where kind = 'ledger_split');`);
    this.addSql(`delete from journals where kind = 'ledger_split';`);
  }
}
