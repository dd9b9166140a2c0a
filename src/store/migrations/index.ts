import type { MigrationObject } from '@mikro-orm/core';
import { Migration20261121000000Initial } from './20261121000000-initial';
import { Migration20261122000000AddressAllocation } from './20261122000000-address-allocation';
import { Migration20261122120000WatcherFinalBlock } from './20261122120000-watcher-final-block';
import { Migration20261125000000OutboxPendingOrder } from './20261125000000-outbox-pending-order';
import { Migration20261126000000WithdrawalCapHours } from './20261126000000-withdrawal-cap-hours';
import { Migration20261127000000DevnetChains } from './20261127000000-devnet-chains';
import { Migration20261127100000OutboxUnaddressed } from './20261127100000-outbox-unaddressed';
import { Migration20261128000000InvoiceSnapshotChainTime } from './20261128000000-invoice-snapshot-chain-time';
import { Migration20261128010000WatcherCursorJson } from './20261128010000-watcher-cursor-json';
import { Migration20261128020000PayoutBook } from './20261128020000-payout-book';
import { Migration20261128030000SeenDeposits } from './20261128030000-seen-deposits';
import { Migration20261128080000CheckoutSettings } from './20261128080000-checkout-settings';
import { Migration20261128100000RequireSignedTimestamp } from './20261128100000-require-signed-timestamp';
import { Migration20261129000000OutboxTxOrder } from './20261129000000-outbox-tx-order';
import { Migration20261129100000ExpiredPayoutWatch } from './20261129100000-expired-payout-watch';
import { Migration20261129110000WithdrawalMemo } from './20261129110000-withdrawal-memo';
import { Migration20261129120000SharedIndexSpace } from './20261129120000-shared-index-space';
import { Migration20261129130000InvoiceMemoMatch } from './20261129130000-invoice-memo-match';
import { Migration20261129140000Treasury } from './20261129140000-treasury';
import { Migration20261129150000DashboardUsers } from './20261129150000-dashboard-users';
import { Migration20261129160000Refunds } from './20261129160000-refunds';

/** Committed migrations, applied in order at start. Add new ones at the end; never edit an applied one. */
export const MIGRATIONS: MigrationObject[] = [
  { name: 'Migration20261121000000Initial', class: Migration20261121000000Initial },
  { name: 'Migration20261122000000AddressAllocation', class: Migration20261122000000AddressAllocation },
  { name: 'Migration20261122120000WatcherFinalBlock', class: Migration20261122120000WatcherFinalBlock },
  { name: 'Migration20261125000000OutboxPendingOrder', class: Migration20261125000000OutboxPendingOrder },
  { name: 'Migration20261126000000WithdrawalCapHours', class: Migration20261126000000WithdrawalCapHours },
  { name: 'Migration20261127000000DevnetChains', class: Migration20261127000000DevnetChains },
  { name: 'Migration20261127100000OutboxUnaddressed', class: Migration20261127100000OutboxUnaddressed },
  { name: 'Migration20261128000000InvoiceSnapshotChainTime', class: Migration20261128000000InvoiceSnapshotChainTime },
  { name: 'Migration20261128010000WatcherCursorJson', class: Migration20261128010000WatcherCursorJson },
  { name: 'Migration20261128020000PayoutBook', class: Migration20261128020000PayoutBook },
  { name: 'Migration20261128030000SeenDeposits', class: Migration20261128030000SeenDeposits },
  { name: 'Migration20261128080000CheckoutSettings', class: Migration20261128080000CheckoutSettings },
  { name: 'Migration20261128100000RequireSignedTimestamp', class: Migration20261128100000RequireSignedTimestamp },
  { name: 'Migration20261129000000OutboxTxOrder', class: Migration20261129000000OutboxTxOrder },
  { name: 'Migration20261129100000ExpiredPayoutWatch', class: Migration20261129100000ExpiredPayoutWatch },
  { name: 'Migration20261129110000WithdrawalMemo', class: Migration20261129110000WithdrawalMemo },
  { name: 'Migration20261129120000SharedIndexSpace', class: Migration20261129120000SharedIndexSpace },
  { name: 'Migration20261129130000InvoiceMemoMatch', class: Migration20261129130000InvoiceMemoMatch },
  { name: 'Migration20261129140000Treasury', class: Migration20261129140000Treasury },
  { name: 'Migration20261129150000DashboardUsers', class: Migration20261129150000DashboardUsers },
  { name: 'Migration20261129160000Refunds', class: Migration20261129160000Refunds },
];
