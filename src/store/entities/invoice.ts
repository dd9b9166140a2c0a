import { EntitySchema } from '@mikro-orm/core';
import type { NetworkCode } from '../../domain/networks';

export type FeePayer = 'buyer' | 'merchant';

/**
 * The invoice row is the truth. `actorSnapshot` is the persisted XState snapshot, written in the
 * same transaction as the row, and exists only to resume the actor after a restart.
 * Invariant: `bookedReceived` is the confirmed received amount the ledger has booked; the ledger
 * entry and this column change in one transaction, guarded by the optimistic `version`.
 */
export class Invoice {
  orderId: string | null = null;
  title: string | null = null;
  currency = 'USDT';
  network: NetworkCode | null = null;
  address: string | null = null;
  memo: string | null = null;
  receivedAmount = '0';
  confirmations = 0;
  requiredConfirmations = 0;
  txHash: string | null = null;
  /** The wallet link for the chosen network (its QR code is rendered from it on read). */
  paymentUri: string | null = null;
  webhookUrl: string | null = null;
  returnUrl: string | null = null;
  cancelUrl: string | null = null;
  paidAt: Date | null = null;
  paidLate = false;
  bookedReceived = '0';
  /** Open: the actor runs (before expiry, or within the late-payment window). */
  open = true;
  closedAt: Date | null = null;
  actorSnapshot: unknown = null;
  updatedAt: Date;
  version = 1;

  constructor(
    public uuid: string,
    public merchantId: string,
    public status: string,
    public amount: string,
    public platformFee: string,
    public networkFee: string,
    public payAmount: string,
    public merchantNet: string,
    public feePayer: FeePayer,
    /** The merchant's JSON object, stored verbatim as text so it is echoed back byte-for-byte. */
    public metadataJson: string,
    public expiresAt: Date,
    public createdAt: Date,
  ) {
    this.updatedAt = createdAt;
  }
}

export const InvoiceSchema = new EntitySchema<Invoice>({
  class: Invoice,
  tableName: 'invoices',
  indexes: [
    { properties: ['open'] },
    { properties: ['merchantId', 'createdAt'] },
    // The buyer's memo, matched in any case (migration 20261129130000-invoice-memo-match).
    { name: 'invoices_network_memo_upper_index', expression: `create index "invoices_network_memo_upper_index" on "invoices" ("network", upper("memo")) where "memo" is not null` },
  ],
  uniques: [
    { properties: ['merchantId', 'orderId'], name: 'invoices_merchant_order_unique' },
    // TON: one shared address, so the memo alone identifies the invoice.
    { properties: ['network', 'memo'], name: 'invoices_network_memo_unique' },
  ],
  properties: {
    uuid: { type: 'uuid', primary: true },
    merchantId: { type: 'uuid' },
    orderId: { type: 'string', length: 200, nullable: true },
    status: { type: 'string', length: 20 },
    title: { type: 'string', length: 200, nullable: true },
    amount: { type: 'decimal', precision: 38, scale: 18 },
    currency: { type: 'string', length: 8 },
    platformFee: { type: 'decimal', precision: 38, scale: 18 },
    networkFee: { type: 'decimal', precision: 38, scale: 18 },
    payAmount: { type: 'decimal', precision: 38, scale: 18 },
    merchantNet: { type: 'decimal', precision: 38, scale: 18 },
    feePayer: { type: 'string', length: 10 },
    network: { type: 'string', length: 16, nullable: true },
    address: { type: 'string', length: 128, nullable: true },
    memo: { type: 'string', length: 64, nullable: true },
    receivedAmount: { type: 'decimal', precision: 38, scale: 18 },
    confirmations: { type: 'integer' },
    requiredConfirmations: { type: 'integer' },
    txHash: { type: 'string', length: 128, nullable: true },
    paymentUri: { type: 'text', nullable: true },
    metadataJson: { type: 'text' },
    webhookUrl: { type: 'text', nullable: true },
    returnUrl: { type: 'text', nullable: true },
    cancelUrl: { type: 'text', nullable: true },
    expiresAt: { type: 'Date', columnType: 'timestamptz(3)' },
    paidAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    paidLate: { type: 'boolean' },
    bookedReceived: { type: 'decimal', precision: 38, scale: 18 },
    open: { type: 'boolean' },
    closedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    actorSnapshot: { type: 'json', nullable: true, lazy: true },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    version: { type: 'integer', version: true },
  },
});
