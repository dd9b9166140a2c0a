import type { CommandSpec } from '../command';
import { actorCommands } from './actors';
import { auditCommands } from './audit';
import { balanceCommands } from './balance';
import { depositCommands } from './deposits';
import { devnetCommands } from './devnet';
import { invoiceCommands } from './invoices';
import { merchantCommands } from './merchant';
import { merchantUserCommands } from './merchant-users';
import { networkCommands } from './networks';
import { signCommands } from './sign';
import { treasuryCommands } from './treasury';
import { watcherCommands } from './watchers';
import { webhookCommands } from './webhooks';
import { whitelistCommands } from './whitelist';
import { withdrawalCommands } from './withdrawals';

/** Every command, in the order `chainpay help` lists them. */
export const COMMANDS: readonly CommandSpec[] = [
  ...merchantCommands,
  ...merchantUserCommands,
  ...networkCommands,
  ...whitelistCommands,
  ...balanceCommands,
  ...invoiceCommands,
  ...withdrawalCommands,
  ...treasuryCommands,
  ...actorCommands,
  ...watcherCommands,
  ...webhookCommands,
  ...depositCommands,
  ...auditCommands,
  ...devnetCommands,
  ...signCommands,
];
