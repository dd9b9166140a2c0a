import { Migration } from '@mikro-orm/migrations';

/**
 * Withdrawal memos (issue 45 item 5): `withdrawals.memo` (the text comment a TON payout carries, for
 * exchanges that credit deposits by comment) and `withdrawal_whitelist.memo` (the memo a withdrawal
 * to that entry inherits when it names none). Null for every existing row and on other networks.
 *
 * Down: drops both columns.
 */
export class Migration20261129110000WithdrawalMemo extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "withdrawals" add column "memo" text null;`);
    this.addSql(`alter table "withdrawal_whitelist" add column "memo" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "withdrawal_whitelist" drop column "memo";`);
    this.addSql(`alter table "withdrawals" drop column "memo";`);
  }
}
