import { randomUUID } from 'node:crypto';
import { EntitySchema } from '@mikro-orm/core';

export class Merchant {
  id: string = randomUUID();
  apiSecretEnc!: string;
  webhookSecretEnc!: string;
  webhookUrl: string | null = null;
  platformFeePercent: string;
  capPerWithdrawal = '1000';
  capDaily = '5000';
  /** Refunds' own auto-payout caps (lower than withdrawals'): above them a refund waits in review. */
  capPerRefund = '200';
  capDailyRefund = '1000';
  underpaymentTolerance = '0';
  /** Checkout page: the name the buyer reads (null: `name`) and whom to contact. */
  displayName: string | null = null;
  supportUrl: string | null = null;
  supportEmail: string | null = null;
  /** Signed calls must carry X-Service-Timestamp (the replay-safe scheme). */
  requireSignedTimestamp = false;
  createdAt: Date;
  updatedAt: Date;
  version = 1;

  constructor(
    public name: string,
    public apiKey: string,
    secrets: { apiSecretEnc: string; webhookSecretEnc: string },
    platformFeePercent: string,
    now: Date,
  ) {
    this.apiSecretEnc = secrets.apiSecretEnc;
    this.webhookSecretEnc = secrets.webhookSecretEnc;
    this.platformFeePercent = platformFeePercent;
    this.createdAt = now;
    this.updatedAt = now;
  }
}

export const MerchantSchema = new EntitySchema<Merchant>({
  class: Merchant,
  tableName: 'merchants',
  properties: {
    id: { type: 'uuid', primary: true },
    name: { type: 'string', length: 200 },
    apiKey: { type: 'string', length: 80, unique: true },
    apiSecretEnc: { type: 'text', lazy: true },
    webhookSecretEnc: { type: 'text', lazy: true },
    webhookUrl: { type: 'text', nullable: true },
    platformFeePercent: { type: 'decimal', precision: 9, scale: 4 },
    capPerWithdrawal: { type: 'decimal', precision: 38, scale: 18 },
    capDaily: { type: 'decimal', precision: 38, scale: 18 },
    capPerRefund: { type: 'decimal', precision: 38, scale: 18, default: 200 },
    capDailyRefund: { type: 'decimal', precision: 38, scale: 18, default: 1000 },
    underpaymentTolerance: { type: 'decimal', precision: 38, scale: 18 },
    displayName: { type: 'string', length: 100, nullable: true },
    supportUrl: { type: 'text', nullable: true },
    supportEmail: { type: 'string', length: 254, nullable: true },
    requireSignedTimestamp: { type: 'boolean', default: false },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    updatedAt: { type: 'Date', columnType: 'timestamptz(3)' },
    version: { type: 'integer', version: true },
  },
});
