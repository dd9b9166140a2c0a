import type { PayoutOperatorAlert } from '../errors';
import type { NetworkCode } from '../../domain/networks';
import { TronAdapterError } from './errors';

/**
 * The hot wallet lacks TRX for the energy and bandwidth of a payout, or the USDT it sends. Nothing
 * was signed. Not a permanent failure: the withdrawal keeps its hold and waits (retried each poll)
 * until the operator funds the wallet; the message says what to send where.
 */
export class TronHotWalletShortError extends TronAdapterError {
  override readonly name = 'TronHotWalletShortError';
  readonly code = 'payout_hot_wallet_short';
  readonly operatorAlert: PayoutOperatorAlert = 'hot_wallet_underfunded';
  constructor(network: NetworkCode, wallet: string, symbol: 'TRX' | 'USDT', balance: string, needed: string) {
    super(`${network} hot wallet ${wallet} holds ${balance} ${symbol}; this payout needs ${needed} ${symbol}: send ${symbol} to it (the withdrawal waits and goes on by itself)`, {
      network,
      wallet,
      symbol,
      balance,
      needed,
    });
  }
}

/** The estimated energy costs more TRX than TRC20_FEE_LIMIT allows: it would end OUT_OF_ENERGY. Nothing was signed; it waits. */
export class TronFeeLimitTooLowError extends TronAdapterError {
  override readonly name = 'TronFeeLimitTooLowError';
  readonly code = 'payout_fee_limit_too_low';
  readonly operatorAlert: PayoutOperatorAlert = 'payout_fee_limit_too_low';
  constructor(network: NetworkCode, neededTrx: string, limitTrx: string) {
    super(`${network} payout needs about ${neededTrx} TRX of energy, above TRC20_FEE_LIMIT=${limitTrx}: raise TRC20_FEE_LIMIT or stake TRX for energy`, {
      network,
      neededTrx,
      limitTrx,
      variable: 'TRC20_FEE_LIMIT',
    });
  }
}

/** The token transfer would revert (the node's simulation says so, e.g. a blacklisted recipient). Nothing was signed. */
export class TronPayoutRejectedError extends TronAdapterError {
  override readonly name = 'TronPayoutRejectedError';
  // The host fails the withdrawal and releases the hold on this code (payout-steps PERMANENT_CODES).
  readonly code = 'payout_rejected';
  constructor(payoutId: string, reason: string) {
    super(`payout ${payoutId} would fail: ${reason}`, { payoutId });
  }
}

/** The node refused the broadcast for a reason a later try may fix (bandwidth, busy node, ...). Retried; never released on it. */
export class TronBroadcastRefusedError extends TronAdapterError {
  override readonly name = 'TronBroadcastRefusedError';
  readonly code = 'payout_broadcast_failed';
  constructor(txID: string, nodeCode: string, nodeMessage: string) {
    super(`broadcast of ${txID} refused: ${nodeCode}${nodeMessage ? ` (${nodeMessage})` : ''}`, { txHash: txID, nodeCode });
  }
}
