import { EntitySchema } from '@mikro-orm/core';

/**
 * One address sweep (migration 20261129140000-treasury). The treasury reads and writes it with raw
 * SQL (src/treasury/sweep-rows.ts); this schema exists so the entity definitions describe the whole
 * database (the migrations test compares them), not to be loaded through the unit of work.
 */
export class SweepRow {
  constructor(
    public id: string,
    public network: string,
    public address: string,
    public derivationIndex: number,
    public target: string,
    public destination: string,
    public amount: string,
    public gasTopup: string,
    public state: string,
    public outcome: string | null,
    public snapshot: unknown,
    public topupRaw: string | null,
    public topupTxHash: string | null,
    public topupMeta: unknown,
    public topupWallet: string | null,
    public topupSequence: number | null,
    public transferRaw: string | null,
    public transferTxHash: string | null,
    public transferMeta: unknown,
    public fee: string | null,
    public manual: boolean,
    public open: boolean,
    public error: string | null,
    public createdAt: Date,
    public updatedAt: Date,
  ) {}
}

export const SweepRowSchema = new EntitySchema<SweepRow>({
  class: SweepRow,
  tableName: 'sweeps',
  indexes: [
    { name: 'sweeps_open_address', expression: 'create unique index "sweeps_open_address" on "sweeps" ("network", "address") where "open"' },
    { name: 'sweeps_topup_book', expression: 'create index "sweeps_topup_book" on "sweeps" ("topup_wallet") where "open" and "topup_raw" is not null' },
  ],
  checks: [{ name: 'sweeps_amount_positive', expression: '"amount" > 0' }],
  properties: {
    id: { type: 'uuid', primary: true },
    network: { type: 'string', length: 20 },
    address: { type: 'string', length: 128 },
    derivationIndex: { type: 'integer' },
    // The migration's check "sweeps_target_check" is what MikroORM writes for an enum column.
    target: { enum: true, items: ['hot', 'cold'], columnType: 'varchar(8)' },
    destination: { type: 'string', length: 128 },
    amount: { type: 'decimal', precision: 38, scale: 18 },
    gasTopup: { type: 'decimal', precision: 38, scale: 18, default: 0 },
    state: { type: 'string', length: 24 },
    outcome: { type: 'string', length: 16, nullable: true },
    snapshot: { type: 'json', nullable: true },
    topupRaw: { type: 'text', nullable: true },
    topupTxHash: { type: 'string', length: 130, nullable: true },
    topupMeta: { type: 'json', nullable: true },
    topupWallet: { type: 'string', length: 160, nullable: true },
    topupSequence: { type: 'integer', nullable: true },
    transferRaw: { type: 'text', nullable: true },
    transferTxHash: { type: 'string', length: 130, nullable: true },
    transferMeta: { type: 'json', nullable: true },
    fee: { type: 'decimal', precision: 38, scale: 18, nullable: true },
    manual: { type: 'boolean', default: false },
    open: { type: 'boolean', default: true },
    error: { type: 'text', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});
