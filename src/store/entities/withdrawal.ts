import { EntitySchema } from '@mikro-orm/core';

/** `canceled`: refunds only (withdrawn by the merchant in review). */
export type WithdrawalStatus = 'review' | 'processing' | 'completed' | 'rejected' | 'failed' | 'canceled';

/**
 * A payout. Invariant: the amount is held on the ledger in the transaction that creates the row;
 * `signedRaw` is persisted before broadcast, so after a crash the same transaction is sent again.
 */
export class Withdrawal {
  reference: string | null = null;
  /** TON only: the text comment the payout carries (its own, or its whitelist entry's); null elsewhere. */
  memo: string | null = null;
  /** 'refund': a payout back to a buyer (invoice_uuid set); 'withdrawal': to a whitelisted address. */
  kind: 'withdrawal' | 'refund' = 'withdrawal';
  invoiceUuid: string | null = null;
  /** Refunds: what the buyer is owed and what counts against the invoice's received amount. */
  refundAmount: string | null = null;
  refundReference: string | null = null;
  refundReason: string | null = null;
  txHash: string | null = null;
  signedRaw: string | null = null;
  signedMeta: unknown = null;
  /** The family's wallet key and sequence number of the stored signed payout (chains/types.ts SignedPayout). */
  payoutWallet: string | null = null;
  /** bigint: read as a string. */
  payoutSequence: string | null = null;
  /** Signatures made after the stored transaction expired (0: the first one only). */
  payoutAttempt = 0;
  confirmations = 0;
  rejectionReason: string | null = null;
  failureReason: string | null = null;
  completedAt: Date | null = null;
  open = true;
  actorSnapshot: unknown = null;
  updatedAt: Date;
  version = 1;
  constructor(
    public uuid: string,
    public merchantId: string,
    public status: WithdrawalStatus,
    public network: string,
    public address: string,
    public amount: string,
    public networkFee: string,
    public netPayout: string,
    public createdAt: Date,
  ) {
    this.updatedAt = createdAt;
  }
}

export class WhitelistEntry {
  removedAt: Date | null = null;
  /** TON only: the comment a withdrawal to this address carries when it names none (an exchange's deposit memo). */
  memo: string | null = null;
  constructor(
    public merchantId: string,
    public network: string,
    public address: string,
    public addedAt: Date,
    public usableAt: Date,
  ) {}
}

export const WithdrawalSchema = new EntitySchema<Withdrawal>({
  class: Withdrawal,
  tableName: 'withdrawals',
  uniques: [{ properties: ['merchantId', 'reference'], name: 'withdrawals_merchant_reference_unique' }],
  // Refunds (migration 20261129160000-refunds): a refund names its invoice and a positive refund amount; a withdrawal neither.
  checks: [
    {
      name: 'withdrawals_refund_shape',
      expression: `("kind" = 'withdrawal' and "invoice_uuid" is null and "refund_amount" is null) or ("kind" = 'refund' and "invoice_uuid" is not null and "refund_amount" > 0)`,
    },
  ],
  indexes: [
    {
      name: 'withdrawals_refund_reference_unique',
      expression: `create unique index "withdrawals_refund_reference_unique" on "withdrawals" ("merchant_id", "refund_reference") where "refund_reference" is not null`,
    },
    {
      name: 'withdrawals_invoice_refunds_index',
      expression: `create index "withdrawals_invoice_refunds_index" on "withdrawals" ("invoice_uuid", "created_at") where "invoice_uuid" is not null`,
    },
    { properties: ['status'] },
    { properties: ['merchantId', 'createdAt'] },
    // Rejected and failed withdrawals, subtracted from the rolling cap's hourly sums (migration 20261126000000-withdrawal-cap-hours).
    {
      name: 'withdrawals_refused_cap_index',
      expression: `create index "withdrawals_refused_cap_index" on "withdrawals" ("merchant_id", "created_at") include ("amount") where "status" in ('rejected', 'failed')`,
    },
    // Withdrawals re-signed after an expiry, by re-signing time: the expired payout watch (migration 20261129100000-expired-payout-watch).
    {
      name: 'withdrawals_expired_versions_index',
      expression: `create index "withdrawals_expired_versions_index" on "withdrawals" ((("signed_meta"->>'signed_at_ms')::bigint)) where "signed_meta" ? 'expired_tx_hashes'`,
    },
  ],
  properties: {
    uuid: { type: 'uuid', primary: true },
    merchantId: { type: 'uuid' },
    reference: { type: 'string', length: 200, nullable: true },
    memo: { type: 'text', nullable: true },
    kind: { type: 'string', length: 16, default: 'withdrawal' },
    invoiceUuid: { type: 'uuid', nullable: true },
    refundAmount: { type: 'decimal', precision: 38, scale: 18, nullable: true },
    refundReference: { type: 'string', length: 200, nullable: true },
    refundReason: { type: 'text', nullable: true },
    status: { type: 'string', length: 16 },
    network: { type: 'string', length: 16 },
    address: { type: 'string', length: 128 },
    amount: { type: 'decimal', precision: 38, scale: 18 },
    networkFee: { type: 'decimal', precision: 38, scale: 18 },
    netPayout: { type: 'decimal', precision: 38, scale: 18 },
    txHash: { type: 'string', length: 128, nullable: true },
    signedRaw: { type: 'text', nullable: true, lazy: true },
    signedMeta: { type: 'json', nullable: true },
    payoutWallet: { type: 'string', length: 128, nullable: true },
    payoutSequence: { type: 'bigint', nullable: true },
    payoutAttempt: { type: 'integer', default: 0 },
    confirmations: { type: 'integer' },
    rejectionReason: { type: 'text', nullable: true },
    failureReason: { type: 'text', nullable: true },
    completedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    open: { type: 'boolean' },
    actorSnapshot: { type: 'json', nullable: true, lazy: true },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    version: { type: 'integer', version: true },
  },
});

export const WhitelistEntrySchema = new EntitySchema<WhitelistEntry>({
  class: WhitelistEntry,
  tableName: 'withdrawal_whitelist',
  primaryKeys: ['merchantId', 'network', 'address'] as never,
  properties: {
    merchantId: { type: 'uuid', primary: true },
    network: { type: 'string', length: 16, primary: true },
    address: { type: 'string', length: 128, primary: true },
    addedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    usableAt: { type: 'Date', columnType: 'timestamptz(3)' },
    removedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    memo: { type: 'text', nullable: true },
  },
});
