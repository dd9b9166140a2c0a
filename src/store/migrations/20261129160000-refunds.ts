import { Migration } from '@mikro-orm/migrations';

/**
 * Refunds (issue 49): a refund is a withdrawal row (`kind` = 'refund') to an address nobody
 * whitelisted, tied to the invoice it gives money back from (`invoice_uuid`). `refund_amount` is
 * what the buyer is owed and what counts against the invoice's received amount (the row's `amount`
 * is what the merchant's balance holds: the refund amount, plus the network fee when the merchant
 * pays it). `refund_reference` is the merchant's idempotency key for refunds (its own namespace,
 * apart from withdrawal references). Merchants get their own, lower, refund caps.
 *
 * Down: drops the columns and indexes.
 */
export class Migration20261129160000Refunds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "withdrawals" add column "kind" varchar(16) not null default 'withdrawal';`);
    this.addSql(`alter table "withdrawals" add column "invoice_uuid" uuid null;`);
    this.addSql(`alter table "withdrawals" add column "refund_amount" numeric(38,18) null;`);
    this.addSql(`alter table "withdrawals" add column "refund_reference" varchar(200) null;`);
    this.addSql(`alter table "withdrawals" add column "refund_reason" text null;`);
    this.addSql(
      `alter table "withdrawals" add constraint "withdrawals_refund_shape" check (("kind" = 'withdrawal' and "invoice_uuid" is null and "refund_amount" is null) or ("kind" = 'refund' and "invoice_uuid" is not null and "refund_amount" > 0));`,
    );
    this.addSql(`create unique index "withdrawals_refund_reference_unique" on "withdrawals" ("merchant_id", "refund_reference") where "refund_reference" is not null;`);
    this.addSql(`create index "withdrawals_invoice_refunds_index" on "withdrawals" ("invoice_uuid", "created_at") where "invoice_uuid" is not null;`);
    this.addSql(`alter table "merchants" add column "cap_per_refund" numeric(38,18) not null default 200;`);
    this.addSql(`alter table "merchants" add column "cap_daily_refund" numeric(38,18) not null default 1000;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "merchants" drop column "cap_daily_refund";`);
    this.addSql(`alter table "merchants" drop column "cap_per_refund";`);
    this.addSql(`drop index "withdrawals_invoice_refunds_index";`);
    this.addSql(`drop index "withdrawals_refund_reference_unique";`);
    this.addSql(`alter table "withdrawals" drop constraint "withdrawals_refund_shape";`);
    for (const c of ['refund_reason', 'refund_reference', 'refund_amount', 'invoice_uuid', 'kind']) this.addSql(`alter table "withdrawals" drop column "${c}";`);
  }
}
