import { BigIntType, EntitySchema } from '@mikro-orm/core';

/**
 * The devnet chains (migration 20261127000000-devnet-chains), written and read only by the devnet
 * store (src/chains/devnet/pg-store.ts) in raw SQL; declared here so the schema stays one. Being in
 * the database, they are shared by every daemon on it: a standby continues the same chains.
 */

/** One row per devnet network: its canonical head. Every chain change moves it (compare-and-swap). */
export class DevnetChainHead {
  constructor(
    public network: string,
    public headHeight: number,
    public headHash: string,
    public updatedAt: Date,
  ) {}
}

/** Every block ever mined, canonical or orphaned by a reorg (a cursor on a dead branch finds its way back). */
export class DevnetBlockRow {
  constructor(
    public network: string,
    public hash: string,
    public height: number,
    public parentHash: string,
    public minedAt: Date,
    public canonical: boolean,
  ) {}
}

/** A token transfer in a block (USDT, the look-alike token, payouts). */
export class DevnetTransferRow {
  constructor(
    public network: string,
    public blockHash: string,
    public eventIndex: number,
    public txHash: string,
    public fromAddress: string,
    public toAddress: string,
    public toKey: string,
    public amount: string,
    public memo: string | null,
    public contract: string,
  ) {}
}

/** A broadcast payout waiting for the next block, in arrival order. */
export class DevnetPendingRow {
  constructor(
    public network: string,
    public txHash: string,
    public position: number,
    public fromAddress: string,
    public toAddress: string,
    public toKey: string,
    public amount: string,
    public memo: string | null,
    public contract: string,
    /** Epoch ms: a block stamped later never includes it (devnet expiry of TRC20, TON, SOLANA payouts); null: never. */
    public validUntilMs: number | null = null,
  ) {}
}

export const DevnetChainHeadSchema = new EntitySchema<DevnetChainHead>({
  class: DevnetChainHead,
  tableName: 'devnet_chains',
  properties: {
    network: { type: 'string', length: 16, primary: true },
    headHeight: { type: new BigIntType('number') },
    headHash: { type: 'string', length: 128 },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});

export const DevnetBlockRowSchema = new EntitySchema<DevnetBlockRow>({
  class: DevnetBlockRow,
  tableName: 'devnet_blocks',
  indexes: [
    // One canonical block per height; the head's window and pages are read by it.
    { name: 'devnet_blocks_canonical_height', expression: `create unique index "devnet_blocks_canonical_height" on "devnet_blocks" ("network", "height") where "canonical"` },
  ],
  properties: {
    network: { type: 'string', length: 16, primary: true },
    hash: { type: 'string', length: 128, primary: true },
    height: { type: new BigIntType('number') },
    parentHash: { type: 'string', length: 128 },
    minedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    canonical: { type: 'boolean' },
  },
});

export const DevnetTransferRowSchema = new EntitySchema<DevnetTransferRow>({
  class: DevnetTransferRow,
  tableName: 'devnet_transfers',
  indexes: [{ properties: ['network', 'txHash'] }],
  properties: {
    network: { type: 'string', length: 16, primary: true },
    blockHash: { type: 'string', length: 128, primary: true },
    eventIndex: { type: 'integer', primary: true },
    txHash: { type: 'string', length: 128 },
    fromAddress: { type: 'string', length: 128 },
    toAddress: { type: 'string', length: 128 },
    toKey: { type: 'string', length: 128 },
    amount: { type: 'decimal', columnType: 'numeric' },
    memo: { type: 'text', nullable: true },
    contract: { type: 'string', length: 128 },
  },
});

export const DevnetPendingRowSchema = new EntitySchema<DevnetPendingRow>({
  class: DevnetPendingRow,
  tableName: 'devnet_mempool',
  properties: {
    network: { type: 'string', length: 16, primary: true },
    txHash: { type: 'string', length: 128, primary: true },
    position: { type: new BigIntType('number') },
    fromAddress: { type: 'string', length: 128 },
    toAddress: { type: 'string', length: 128 },
    toKey: { type: 'string', length: 128 },
    amount: { type: 'decimal', columnType: 'numeric' },
    memo: { type: 'text', nullable: true },
    contract: { type: 'string', length: 128 },
    validUntilMs: { type: new BigIntType('number'), nullable: true },
  },
});
