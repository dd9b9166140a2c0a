import type { DepositTarget } from './invoice-context';
import type { TransferSeen } from './invoice-payment';

/**
 * What the invoice actor is told. `at` is the daemon clock's time of the observation (ISO); it is
 * the machine's only notion of "now" besides its timers, so it must never be ahead of the clock.
 * Watchers never set a status: they report, the machine decides.
 */
export type InvoiceMachineEvent =
  /**
   * `to`: where the transfer landed; a transfer whose `to` is not the invoice's target is not taken
   * (the host then records it as unattributed). `payment.blockTime` is its block's timestamp.
   */
  | { readonly type: 'TRANSFER_SEEN'; readonly payment: TransferSeen; readonly to?: DepositTarget; readonly at: string }
  | { readonly type: 'CONFIRMATIONS'; readonly key: string; readonly confirmations: number; readonly at: string }
  | { readonly type: 'TRANSFER_REVERTED'; readonly key: string; readonly at: string }
  /** The network's watcher has processed every block stamped before `chainTime` (ISO). */
  | { readonly type: 'CHAIN_TIME'; readonly chainTime: string; readonly at: string }
  /** Only taken while pending, unexpired and with nothing received (see canChangeNetwork). */
  | { readonly type: 'NETWORK_CHANGED'; readonly payAmount: string; readonly requiredConfirmations: number; readonly target?: DepositTarget; readonly at?: string }
  /** The merchant cancels: only taken while pending, unexpired and with nothing received (see canCancel). */
  | { readonly type: 'CANCEL'; readonly at: string }
  /** Sent by the host right after restoring a snapshot: re-arms the timers from `at`. */
  | { readonly type: 'RESUME'; readonly at: string };
