import { randomUUID } from 'node:crypto';
import { BigIntType, EntitySchema } from '@mikro-orm/core';

/** A transfer to one of our addresses that matches no invoice: never lost, resolved by an operator. */
export type UnattributedState = 'open' | 'attributed' | 'reverted';

export class UnattributedDeposit {
  id: string = randomUUID();
  state: UnattributedState = 'open';
  invoiceUuid: string | null = null;
  resolvedBy: string | null = null;
  resolvedAt: Date | null = null;
  confirmations = 0;
  /** A wrong-network payment (reason `wrong_network`): the invoice holding its address on another network of the family, and that network. */
  intendedInvoiceUuid: string | null = null;
  intendedNetwork: string | null = null;
  constructor(
    public network: string,
    public address: string,
    public memo: string | null,
    public txHash: string,
    public eventIndex: number,
    public amount: string,
    public fromAddress: string,
    public blockHeight: number,
    public blockHash: string,
    /** free_pool_address | wrong_network | unknown_memo | missing_memo | invoice_closed | late_window_over | target_changed | invalid_transfer (invoice-step.ts transferRefusal) */
    public reason: string,
    public seenAt: Date,
  ) {}
}

export const UnattributedDepositSchema = new EntitySchema<UnattributedDeposit>({
  class: UnattributedDeposit,
  tableName: 'unattributed_deposits',
  uniques: [{ properties: ['network', 'txHash', 'eventIndex'], name: 'unattributed_transfer_unique' }],
  properties: {
    id: { type: 'uuid', primary: true },
    network: { type: 'string', length: 16 },
    address: { type: 'string', length: 128 },
    memo: { type: 'string', length: 128, nullable: true },
    txHash: { type: 'string', length: 128 },
    eventIndex: { type: 'integer' },
    amount: { type: 'decimal', precision: 38, scale: 18 },
    fromAddress: { type: 'string', length: 128 },
    blockHeight: { type: new BigIntType('number') },
    blockHash: { type: 'string', length: 128 },
    confirmations: { type: 'integer' },
    reason: { type: 'string', length: 32 },
    state: { type: 'string', length: 16 },
    invoiceUuid: { type: 'uuid', nullable: true },
    intendedInvoiceUuid: { type: 'uuid', nullable: true },
    intendedNetwork: { type: 'string', length: 16, nullable: true },
    resolvedBy: { type: 'string', length: 200, nullable: true },
    resolvedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    seenAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});
