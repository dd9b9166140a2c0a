import { Migration } from '@mikro-orm/migrations';

/**
 * TON memos are matched as the buyer typed them, in any case (src/domain/memo-match.ts): the lookup
 * is `upper(memo) = ?` per network, served by this expression index. Nothing is rewritten: a memo
 * keeps the spelling the buyer was shown (payment links, the checkout). Not unique: rows written
 * before could differ only by case (the exact unique key invoices_network_memo_unique stays);
 * the lookup refuses to guess between such rows.
 */
export class Migration20261129130000InvoiceMemoMatch extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "invoices_network_memo_upper_index" on "invoices" ("network", upper("memo")) where "memo" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "invoices_network_memo_upper_index";`);
  }
}
