import { BigIntType, EntitySchema } from '@mikro-orm/core';
import { randomUUID } from 'node:crypto';

export type PaymentState = 'confirming' | 'confirmed' | 'reverted';

/** One transfer credited to an invoice. Unique per (network, tx_hash, event_index): counted once. */
export class InvoicePayment {
  id: string = randomUUID();
  confirmations = 0;
  state: PaymentState = 'confirming';
  late = false;
  constructor(
    public invoiceUuid: string,
    public network: string,
    public txHash: string,
    public eventIndex: number,
    public fromAddress: string,
    public toAddress: string,
    public memo: string | null,
    public amount: string,
    public blockHeight: number,
    public blockHash: string,
    public seenAt: Date,
  ) {}
}

export const InvoicePaymentSchema = new EntitySchema<InvoicePayment>({
  class: InvoicePayment,
  tableName: 'invoice_payments',
  uniques: [{ properties: ['network', 'txHash', 'eventIndex'], name: 'invoice_payments_transfer_unique' }],
  indexes: [{ properties: ['invoiceUuid'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    invoiceUuid: { type: 'uuid' },
    network: { type: 'string', length: 16 },
    txHash: { type: 'string', length: 128 },
    eventIndex: { type: 'integer' },
    fromAddress: { type: 'string', length: 128 },
    toAddress: { type: 'string', length: 128 },
    memo: { type: 'string', length: 128, nullable: true },
    amount: { type: 'decimal', precision: 38, scale: 18 },
    blockHeight: { type: new BigIntType('number') },
    blockHash: { type: 'string', length: 128 },
    confirmations: { type: 'integer' },
    state: { type: 'string', length: 16 },
    late: { type: 'boolean' },
    seenAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});
