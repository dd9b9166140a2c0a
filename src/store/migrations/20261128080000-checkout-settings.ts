import { Migration } from '@mikro-orm/migrations';

/**
 * What the hosted checkout shows (issue 39): the merchant's display name and support contact
 * (`chainpay merchant set-checkout`), and each network's block-explorer URL template
 * (`chainpay networks set-explorer`). All nullable: a merchant without a display name shows its
 * name; a network's null template means the built-in default (src/domain/explorers.ts: the mainnet
 * explorer live, none on devnet), '' means no explorer link.
 */
export class Migration20261128080000CheckoutSettings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "merchants" add column "display_name" varchar(100) null, add column "support_url" text null, add column "support_email" varchar(254) null;`);
    this.addSql(`alter table "network_settings" add column "explorer_tx_url" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "network_settings" drop column "explorer_tx_url";`);
    this.addSql(`alter table "merchants" drop column "display_name", drop column "support_url", drop column "support_email";`);
  }
}
