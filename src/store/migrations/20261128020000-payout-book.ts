import { Migration } from '@mikro-orm/migrations';

/**
 * Payouts owned by their chain family (issue 33):
 * - `withdrawals.payout_wallet` / `payout_sequence`: the family's wallet key and sequence number of
 *   the stored signed payout (EVM: `<chainId>:<from>` and the nonce; TON: the seqno), read by the
 *   host's durable payout book instead of EVM keys inside signed_meta. Existing EVM payouts are
 *   backfilled from their signed_meta (chainId, from, nonce), so their nonces stay reserved.
 * - `withdrawals.payout_attempt`: how many times the payout was signed anew after its stored
 *   transaction expired (0 for every existing row: nothing expired before this version).
 * - `devnet_mempool.valid_until_ms`: the devnet's simulated expiry (TRC20, TON, SOLANA payouts): a
 *   block stamped later never includes the transaction. Null (existing rows, EVM): never expires.
 *
 * Down: drops the columns (the signed_meta keys they were filled from are still there).
 */
export class Migration20261128020000PayoutBook extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "withdrawals" add column "payout_wallet" varchar(128) null, add column "payout_sequence" bigint null, add column "payout_attempt" int not null default 0;`);
    this.addSql(`update "withdrawals"
      set "payout_wallet" = ("signed_meta" ->> 'chainId') || ':' || lower("signed_meta" ->> 'from'),
          "payout_sequence" = ("signed_meta" ->> 'nonce')::bigint
      where "signed_raw" is not null and jsonb_typeof("signed_meta") = 'object'
        and "signed_meta" ? 'nonce' and "signed_meta" ? 'chainId' and "signed_meta" ? 'from';`);
    this.addSql(`alter table "devnet_mempool" add column "valid_until_ms" bigint null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "devnet_mempool" drop column "valid_until_ms";`);
    this.addSql(`alter table "withdrawals" drop column "payout_wallet", drop column "payout_sequence", drop column "payout_attempt";`);
  }
}
