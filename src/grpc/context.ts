import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock';
import type { Authenticator } from './auth';
import type { NetworkSettingsRepo } from '../store/repos/network-settings';
import type { MerchantsRepo } from '../store/repos/merchants';
import type { Invoices } from '../actors/invoices/invoices';
import type { InvoiceActors } from '../actors/invoices/invoice-actors';
import type { Withdrawals } from '../actors/withdrawals/withdrawals';
import type { WithdrawalActors } from '../actors/withdrawals/withdrawal-actors';
import type { Whitelist } from '../actors/withdrawals/whitelist';
import type { Refunds } from '../actors/refunds/refunds';
import type { ChainAdapter } from '../chains/types';
import type { NetworkCode } from '../domain/networks';

/** What the thin gRPC services reach: repositories and the actor system, never SQL. */
export interface ServiceContext {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly auth: Authenticator;
  readonly networks: NetworkSettingsRepo;
  readonly merchants: MerchantsRepo;
  readonly defaultPlatformFeePercent: string;
  /** Called after a merchant's key or secret changed, so cached secrets are dropped. */
  readonly onMerchantCredentialsChanged: (apiKey: string) => void;
  readonly publicUrl: string;
  /** The daemon's mode: false on devnet. Every Invoice and Withdrawal carries it. */
  readonly livemode: boolean;
  readonly invoices: Invoices;
  readonly invoiceActors: InvoiceActors;
  readonly withdrawals: Withdrawals;
  readonly withdrawalActors: WithdrawalActors;
  readonly whitelist: Whitelist;
  readonly refunds: Refunds;
  /** The running chains: the checkout builds the remainder's wallet link with them. */
  readonly adapters: ReadonlyMap<NetworkCode, ChainAdapter>;
  /** 422 `invalid_webhook_url` for a submitted URL whose host is (or resolves only to) a private address (webhooks/submission-check.ts). */
  readonly checkWebhookUrl: (url: string) => Promise<void>;
}
