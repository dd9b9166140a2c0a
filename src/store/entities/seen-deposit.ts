import { BigIntType, EntitySchema } from '@mikro-orm/core';

/**
 * A transfer naming an open invoice, as the watcher saw it: written in the transaction that moves
 * the watcher's cursor past its block, `decided` false until the invoice's own commit took it (a
 * payment row) or refused it (an unattributed deposit). Undecided rows are delivered again at start,
 * so a crash between the cursor and the invoice loses nothing; the invoice machine dedupes a repeat.
 */
export class SeenDeposit {
  decided = false;
  constructor(
    public network: string,
    public txHash: string,
    public eventIndex: number,
    public invoiceUuid: string,
    public fromAddress: string,
    public toAddress: string,
    public memo: string | null,
    public amount: string,
    public blockHeight: number,
    public blockHash: string,
    public blockTime: Date,
    /** The family's count when it was seen (at least 1): what TRANSFER_SEEN carries. */
    public confirmations: number,
    public seenAt: Date,
  ) {}
}

export const SeenDepositSchema = new EntitySchema<SeenDeposit>({
  class: SeenDeposit,
  tableName: 'seen_deposits',
  indexes: [{ properties: ['network', 'decided'], name: 'seen_deposits_network_decided_index' }],
  properties: {
    network: { type: 'string', length: 16, primary: true },
    txHash: { type: 'string', length: 128, primary: true },
    eventIndex: { type: 'integer', primary: true },
    invoiceUuid: { type: 'uuid' },
    fromAddress: { type: 'string', length: 128 },
    toAddress: { type: 'string', length: 128 },
    memo: { type: 'string', length: 128, nullable: true },
    amount: { type: 'decimal', precision: 38, scale: 18 },
    blockHeight: { type: new BigIntType('number') },
    blockHash: { type: 'string', length: 128 },
    blockTime: { type: 'Date', columnType: 'timestamptz(3)' },
    confirmations: { type: 'integer' },
    decided: { type: 'boolean', default: false },
    seenAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});
