export * from './merchant';
export * from './network-setting';
export * from './invoice';
export * from './invoice-payment';
export * from './deposit-address';
export * from './unattributed-deposit';
export * from './seen-deposit';
export * from './ledger';
export * from './watcher-cursor';
export * from './outbox-event';
export * from './audit-entry';
export * from './withdrawal';
export * from './withdrawal-cap-hour';
export * from './system-setting';
export * from './devnet-chain';
export * from './sweep';
export * from './dashboard-user';

import { MerchantSchema } from './merchant';
import { NetworkSettingSchema } from './network-setting';
import { InvoiceSchema } from './invoice';
import { InvoicePaymentSchema } from './invoice-payment';
import { DepositAddressSchema } from './deposit-address';
import { UnattributedDepositSchema } from './unattributed-deposit';
import { SeenDepositSchema } from './seen-deposit';
import { JournalSchema, LedgerEntrySchema, MerchantBalanceSchema } from './ledger';
import { WatcherCursorSchema } from './watcher-cursor';
import { OutboxEventSchema, WebhookAttemptSchema } from './outbox-event';
import { AuditEntrySchema } from './audit-entry';
import { WhitelistEntrySchema, WithdrawalSchema } from './withdrawal';
import { WithdrawalCapHourSchema } from './withdrawal-cap-hour';
import { SystemSettingSchema } from './system-setting';
import { SweepRowSchema } from './sweep';
import { DashboardSessionSchema, DashboardUserSchema } from './dashboard-user';
import { DevnetBlockRowSchema, DevnetChainHeadSchema, DevnetPendingRowSchema, DevnetTransferRowSchema } from './devnet-chain';

export const ALL_ENTITIES = [
  MerchantSchema,
  NetworkSettingSchema,
  InvoiceSchema,
  InvoicePaymentSchema,
  DepositAddressSchema,
  UnattributedDepositSchema,
  SeenDepositSchema,
  JournalSchema,
  LedgerEntrySchema,
  MerchantBalanceSchema,
  WatcherCursorSchema,
  OutboxEventSchema,
  WebhookAttemptSchema,
  AuditEntrySchema,
  WithdrawalSchema,
  WhitelistEntrySchema,
  WithdrawalCapHourSchema,
  SystemSettingSchema,
  DevnetChainHeadSchema,
  DevnetBlockRowSchema,
  DevnetTransferRowSchema,
  DevnetPendingRowSchema,
  SweepRowSchema,
  DashboardUserSchema,
  DashboardSessionSchema,
];
