import { randomUUID } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';

/**
 * Double-entry ledger. A journal groups entries whose amounts sum to exactly zero.
 * `journals.reference` is unique: the same business event (e.g. `invoice:<uuid>:settle:<n>`)
 * can never be booked twice, whatever retries or crashes happen.
 * Accounts: `merchant:<id>:available`, `merchant:<id>:held` (liabilities, credit-positive),
 * `platform:fees`, `network:<CODE>:fees`, `chain:<CODE>:wallet` (assets, debit-positive as negative numbers).
 */
export class Journal {
  id: string = randomUUID();
  constructor(
    public reference: string,
    public kind: string,
    public createdAt: Date,
  ) {}
}

export class LedgerEntry {
  id: string = randomUUID();
  constructor(
    public journalId: string,
    public account: string,
    /** Signed decimal: positive credits the account, negative debits it. */
    public amount: string,
    public merchantId: string | null,
    public createdAt: Date,
  ) {}
}

/** Per-merchant balance cache kept in step with the entries in the same transaction. */
export class MerchantBalance {
  available = '0';
  held = '0';
  version = 1;
  constructor(
    public merchantId: string,
    public updatedAt: Date,
  ) {}
}

export const JournalSchema = new EntitySchema<Journal>({
  class: Journal,
  tableName: 'journals',
  properties: {
    id: { type: 'uuid', primary: true },
    reference: { type: 'string', length: 200, unique: true },
    kind: { type: 'string', length: 40 },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});

export const LedgerEntrySchema = new EntitySchema<LedgerEntry>({
  class: LedgerEntry,
  tableName: 'ledger_entries',
  indexes: [{ properties: ['journalId'] }, { properties: ['account'] }],
  properties: {
    id: { type: 'uuid', primary: true },
    journalId: { type: 'uuid' },
    account: { type: 'string', length: 120 },
    amount: { type: 'decimal', precision: 38, scale: 18 },
    merchantId: { type: 'uuid', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});

export const MerchantBalanceSchema = new EntitySchema<MerchantBalance>({
  class: MerchantBalance,
  tableName: 'merchant_balances',
  checks: [{ name: 'merchant_balances_non_negative', expression: 'available >= 0 and held >= 0' }],
  properties: {
    merchantId: { type: 'uuid', primary: true },
    available: { type: 'decimal', precision: 38, scale: 18 },
    held: { type: 'decimal', precision: 38, scale: 18 },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    version: { type: 'integer', version: true },
  },
});
