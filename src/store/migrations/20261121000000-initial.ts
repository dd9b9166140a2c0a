import { Migration } from '@mikro-orm/migrations';

/** The initial schema: merchants, networks, invoices, payments, address pool, ledger, outbox, withdrawals. */
export class Migration20261121000000Initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create table "audit_log" ("id" uuid not null, "actor" varchar(200) not null, "action" varchar(80) not null, "target" varchar(200) not null, "before" jsonb null, "after" jsonb null, "at" timestamptz(3) not null, constraint "audit_log_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "audit_log_at_index" on "audit_log" ("at");`);
    this.addSql(
      `create table "deposit_addresses" ("network" varchar(16) not null, "derivation_index" int not null, "address" varchar(128) not null, "normalized" varchar(128) not null, "state" varchar(16) not null default 'free', "invoice_uuid" uuid null, "available_at" timestamptz(3) null, "allocated_at" timestamptz(3) null, "created_at" timestamptz(3) not null, constraint "deposit_addresses_pkey" primary key ("network", "derivation_index"));`,
    );
    this.addSql(`create index "deposit_addresses_network_state_index" on "deposit_addresses" ("network", "state");`);
    this.addSql(`alter table "deposit_addresses" add constraint "deposit_addresses_network_address_unique" unique ("network", "normalized");`);
    this.addSql(
      `create table "invoices" ("uuid" uuid not null, "merchant_id" uuid not null, "order_id" varchar(200) null, "status" varchar(20) not null, "title" varchar(200) null, "amount" numeric(38,18) not null, "currency" varchar(8) not null default 'USDT', "platform_fee" numeric(38,18) not null, "network_fee" numeric(38,18) not null, "pay_amount" numeric(38,18) not null, "merchant_net" numeric(38,18) not null, "fee_payer" varchar(10) not null, "network" varchar(16) null, "address" varchar(128) null, "memo" varchar(64) null, "received_amount" numeric(38,18) not null default '0', "confirmations" int not null default 0, "required_confirmations" int not null default 0, "tx_hash" varchar(128) null, "payment_uri" text null, "metadata_json" text not null, "webhook_url" text null, "return_url" text null, "cancel_url" text null, "expires_at" timestamptz(3) not null, "paid_at" timestamptz(3) null, "paid_late" boolean not null default false, "booked_received" numeric(38,18) not null default '0', "open" boolean not null default true, "closed_at" timestamptz(3) null, "actor_snapshot" jsonb null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "version" int not null default 1, constraint "invoices_pkey" primary key ("uuid"));`,
    );
    this.addSql(`create index "invoices_open_index" on "invoices" ("open");`);
    this.addSql(`create index "invoices_merchant_id_created_at_index" on "invoices" ("merchant_id", "created_at");`);
    this.addSql(`alter table "invoices" add constraint "invoices_merchant_order_unique" unique ("merchant_id", "order_id");`);
    this.addSql(`alter table "invoices" add constraint "invoices_network_memo_unique" unique ("network", "memo");`);
    this.addSql(
      `create table "invoice_payments" ("id" uuid not null, "invoice_uuid" uuid not null, "network" varchar(16) not null, "tx_hash" varchar(128) not null, "event_index" int not null, "from_address" varchar(128) not null, "to_address" varchar(128) not null, "memo" varchar(128) null, "amount" numeric(38,18) not null, "block_height" bigint not null, "block_hash" varchar(128) not null, "confirmations" int not null default 0, "state" varchar(16) not null default 'confirming', "late" boolean not null default false, "seen_at" timestamptz(3) not null, constraint "invoice_payments_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "invoice_payments_invoice_uuid_index" on "invoice_payments" ("invoice_uuid");`);
    this.addSql(`alter table "invoice_payments" add constraint "invoice_payments_transfer_unique" unique ("network", "tx_hash", "event_index");`);
    this.addSql(
      `create table "journals" ("id" uuid not null, "reference" varchar(200) not null, "kind" varchar(40) not null, "created_at" timestamptz(3) not null, constraint "journals_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "journals" add constraint "journals_reference_unique" unique ("reference");`);
    this.addSql(
      `create table "ledger_entries" ("id" uuid not null, "journal_id" uuid not null, "account" varchar(120) not null, "amount" numeric(38,18) not null, "merchant_id" uuid null, "created_at" timestamptz(3) not null, constraint "ledger_entries_pkey" primary key ("id"));`,
    );
    this.addSql(`create index "ledger_entries_journal_id_index" on "ledger_entries" ("journal_id");`);
    this.addSql(`create index "ledger_entries_account_index" on "ledger_entries" ("account");`);
    this.addSql(
      `create table "merchants" ("id" uuid not null, "name" varchar(200) not null, "api_key" varchar(80) not null, "api_secret_enc" text not null, "webhook_secret_enc" text not null, "webhook_url" text null, "platform_fee_percent" numeric(9,4) not null, "cap_per_withdrawal" numeric(38,18) not null, "cap_daily" numeric(38,18) not null, "underpayment_tolerance" numeric(38,18) not null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "version" int not null default 1, constraint "merchants_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "merchants" add constraint "merchants_api_key_unique" unique ("api_key");`);
    this.addSql(
      `create table "merchant_balances" ("merchant_id" uuid not null, "available" numeric(38,18) not null default '0', "held" numeric(38,18) not null default '0', "updated_at" timestamptz(3) not null, "version" int not null default 1, constraint "merchant_balances_pkey" primary key ("merchant_id"), constraint merchant_balances_non_negative check (available >= 0 and held >= 0));`,
    );
    this.addSql(
      `create table "network_settings" ("code" varchar(16) not null, "buyer_network_fee" numeric(38,18) not null, "withdrawal_fee" numeric(38,18) not null, "min_invoice" numeric(38,18) not null, "min_withdrawal" numeric(38,18) not null, "required_confirmations" int not null, "active" boolean not null default true, "updated_at" timestamptz(3) not null, "version" int not null default 1, constraint "network_settings_pkey" primary key ("code"));`,
    );
    this.addSql(
      `create table "outbox_events" ("id" varchar(40) not null, "seq" bigserial, "merchant_id" uuid not null, "aggregate_type" varchar(16) not null, "aggregate_id" uuid not null, "type" varchar(40) not null, "body" text not null, "status" varchar(16) not null default 'pending', "attempts" int not null default 0, "next_attempt_at" timestamptz(3) not null, "delivered_at" timestamptz(3) null, "target_url" text null, "created_at" timestamptz(3) not null, constraint "outbox_events_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "outbox_events" add constraint "outbox_events_seq_unique" unique ("seq");`);
    this.addSql(`create index "outbox_events_status_next_attempt_at_index" on "outbox_events" ("status", "next_attempt_at");`);
    this.addSql(`create index "outbox_events_aggregate_id_seq_index" on "outbox_events" ("aggregate_id", "seq");`);
    this.addSql(`create index "outbox_events_merchant_id_seq_index" on "outbox_events" ("merchant_id", "seq");`);
    this.addSql(`create table "system_settings" ("key" varchar(80) not null, "value" jsonb not null, "updated_at" timestamptz(3) not null, constraint "system_settings_pkey" primary key ("key"));`);
    this.addSql(
      `create table "unattributed_deposits" ("id" uuid not null, "network" varchar(16) not null, "address" varchar(128) not null, "memo" varchar(128) null, "tx_hash" varchar(128) not null, "event_index" int not null, "amount" numeric(38,18) not null, "from_address" varchar(128) not null, "block_height" bigint not null, "block_hash" varchar(128) not null, "confirmations" int not null default 0, "reason" varchar(32) not null, "state" varchar(16) not null default 'open', "invoice_uuid" uuid null, "resolved_by" varchar(200) null, "resolved_at" timestamptz(3) null, "seen_at" timestamptz(3) not null, constraint "unattributed_deposits_pkey" primary key ("id"));`,
    );
    this.addSql(`alter table "unattributed_deposits" add constraint "unattributed_transfer_unique" unique ("network", "tx_hash", "event_index");`);
    this.addSql(
      `create table "watcher_cursors" ("network" varchar(16) not null, "height" bigint not null, "hash" varchar(128) not null, "paused" boolean not null default false, "updated_at" timestamptz(3) not null, constraint "watcher_cursors_pkey" primary key ("network"));`,
    );
    this.addSql(
      `create table "webhook_attempts" ("id" serial primary key, "event_id" varchar(40) not null, "attempt" int not null, "at" timestamptz(3) not null, "status_code" int null, "latency_ms" int not null, "error" text null);`,
    );
    this.addSql(`create index "webhook_attempts_event_id_index" on "webhook_attempts" ("event_id");`);
    this.addSql(
      `create table "withdrawal_whitelist" ("merchant_id" uuid not null, "network" varchar(16) not null, "address" varchar(128) not null, "added_at" timestamptz(3) not null, "usable_at" timestamptz(3) not null, "removed_at" timestamptz(3) null, constraint "withdrawal_whitelist_pkey" primary key ("merchant_id", "network", "address"));`,
    );
    this.addSql(
      `create table "withdrawals" ("uuid" uuid not null, "merchant_id" uuid not null, "reference" varchar(200) null, "status" varchar(16) not null, "network" varchar(16) not null, "address" varchar(128) not null, "amount" numeric(38,18) not null, "network_fee" numeric(38,18) not null, "net_payout" numeric(38,18) not null, "tx_hash" varchar(128) null, "signed_raw" text null, "signed_meta" jsonb null, "confirmations" int not null default 0, "rejection_reason" text null, "failure_reason" text null, "completed_at" timestamptz(3) null, "open" boolean not null default true, "actor_snapshot" jsonb null, "created_at" timestamptz(3) not null, "updated_at" timestamptz(3) not null, "version" int not null default 1, constraint "withdrawals_pkey" primary key ("uuid"));`,
    );
    this.addSql(`create index "withdrawals_status_index" on "withdrawals" ("status");`);
    this.addSql(`create index "withdrawals_merchant_id_created_at_index" on "withdrawals" ("merchant_id", "created_at");`);
    this.addSql(`alter table "withdrawals" add constraint "withdrawals_merchant_reference_unique" unique ("merchant_id", "reference");`);
  }

  override async down(): Promise<void> {
    for (const table of [
      'withdrawal_whitelist',
      'withdrawals',
      'webhook_attempts',
      'watcher_cursors',
      'unattributed_deposits',
      'system_settings',
      'outbox_events',
      'network_settings',
      'merchant_balances',
      'merchants',
      'ledger_entries',
      'journals',
      'invoice_payments',
      'invoices',
      'deposit_addresses',
      'audit_log',
    ]) {
      this.addSql(`drop table if exists "${table}" cascade;`);
    }
  }
}
