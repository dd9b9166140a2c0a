import type { NetworkCode } from '../../domain/networks';

export type EvmErrorDetails = Record<string, string | number | boolean | null | undefined>;

/** Errors of the EVM adapter; callers branch on the class or `code`, never on the message. */
export abstract class EvmAdapterError extends Error {
  abstract override readonly name: string;
  abstract readonly code: string;
  constructor(
    message: string,
    readonly details: EvmErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** init(): the configured token is not a contract on this chain (wrong address or wrong RPC). */
export class TokenContractMissingError extends EvmAdapterError {
  override readonly name = 'TokenContractMissingError';
  readonly code = 'token_not_a_contract';
  constructor(network: NetworkCode, token: string) {
    super(`${network}: no contract at token address ${token}`, { network, token });
  }
}

/** init(): decimals() differs from the expected precision: amounts would be off by powers of ten. */
export class TokenDecimalsMismatchError extends EvmAdapterError {
  override readonly name = 'TokenDecimalsMismatchError';
  readonly code = 'token_decimals_mismatch';
  constructor(network: NetworkCode, token: string, expected: number, actual: number) {
    super(`${network}: token ${token} has ${actual} decimals, expected ${expected}`, { network, token, expected, actual });
  }
}

/** init(): the RPC serves another chain than the configured expectedChainId. */
export class ChainIdMismatchError extends EvmAdapterError {
  override readonly name = 'ChainIdMismatchError';
  readonly code = 'chain_id_mismatch';
  constructor(network: NetworkCode, expected: number, actual: number) {
    super(`${network}: RPC serves chain ${actual}, expected ${expected}`, { network, expected, actual });
  }
}

/** A method that needs init() (token decimals, chain id) was called before it. */
export class AdapterNotInitializedError extends EvmAdapterError {
  override readonly name = 'AdapterNotInitializedError';
  readonly code = 'adapter_not_initialized';
  constructor(network: NetworkCode) {
    super(`${network}: call init() first`, { network });
  }
}

/**
 * The payout's nonce was used, and the node knows no version of this payout: as far as this node
 * can tell, another transaction took the nonce. A lagging or pruned node says the same of a payout
 * that was mined, so this is no proof that the payee was not paid: the host neither signs anew nor
 * releases funds on it (the withdrawal waits for an operator).
 */
export class PayoutNonceConsumedError extends EvmAdapterError {
  override readonly name = 'PayoutNonceConsumedError';
  readonly code = 'payout_nonce_consumed';
  constructor(txHash: string, nonce: number) {
    super(`nonce ${nonce} of payout ${txHash} was used by another transaction`, { txHash, nonce });
  }
}

/**
 * The node refused the transaction (fee too low, hot wallet out of gas money, node down). Retry
 * later or bump. `diagnosis`: what the chain state says about it when that explains it (the hot
 * wallet cannot pay the gas), so the retry's log line tells the operator what to do.
 */
export class PayoutBroadcastError extends EvmAdapterError {
  override readonly name = 'PayoutBroadcastError';
  readonly code = 'payout_broadcast_failed';
  constructor(
    txHash: string,
    cause: unknown,
    readonly diagnosis?: PayoutInsufficientGasError,
  ) {
    const why = diagnosis ? diagnosis.message : cause instanceof Error ? cause.message.split('\n')[0] : String(cause);
    super(`broadcast of ${txHash} failed: ${why}`, { txHash, ...(diagnosis ? { diagnosis: diagnosis.code } : {}) }, { cause });
  }
}

/** What a hot wallet holds against what a payout needs, both as decimal strings of `symbol`. */
export interface HotWalletShortfall {
  readonly network: NetworkCode;
  readonly wallet: string;
  readonly symbol: string;
  readonly balance: string;
  /** Null when the node would not estimate the gas (it refused the call): only the balance is known. */
  readonly needed: string | null;
}

/**
 * The hot wallet cannot pay the gas of the payout (native coin: BNB, POL, ETH). Nothing was
 * signed: the withdrawal fails with this message, which says what the operator has to do.
 */
export class PayoutInsufficientGasError extends EvmAdapterError {
  override readonly name = 'PayoutInsufficientGasError';
  readonly code = 'payout_insufficient_gas';
  constructor(readonly shortfall: HotWalletShortfall) {
    const { network, wallet, symbol, balance, needed } = shortfall;
    const need = needed === null ? '' : `; this payout needs up to ${needed} ${symbol}`;
    super(`${network} hot wallet ${wallet} has ${balance} ${symbol} for gas${need}: send ${symbol} to it, then the merchant can withdraw again`, { ...shortfall });
  }
}

/** The hot wallet holds fewer tokens than the payout sends. Nothing was signed. */
export class PayoutInsufficientTokenError extends EvmAdapterError {
  override readonly name = 'PayoutInsufficientTokenError';
  readonly code = 'payout_insufficient_token';
  constructor(readonly shortfall: HotWalletShortfall) {
    const { network, wallet, symbol, balance, needed } = shortfall;
    super(`${network} hot wallet ${wallet} holds ${balance} ${symbol}; this payout sends ${needed ?? '?'} ${symbol}: refill the hot wallet, then the merchant can withdraw again`, { ...shortfall });
  }
}

/** The payout cannot be signed: the token transfer would revert (e.g. the hot wallet lacks tokens). */
export class PayoutRejectedError extends EvmAdapterError {
  override readonly name = 'PayoutRejectedError';
  readonly code = 'payout_rejected';
  constructor(payoutId: string, cause: unknown) {
    super(`payout ${payoutId} would fail: ${cause instanceof Error ? cause.message.split('\n')[0] : String(cause)}`, { payoutId }, { cause });
  }
}

/** The live options of an EVM network are missing or invalid; `variable` names the environment variable. */
export class EvmConfigError extends EvmAdapterError {
  override readonly name = 'EvmConfigError';
  readonly code = 'evm_config_invalid';
  constructor(
    readonly variable: string,
    message: string,
  ) {
    super(`invalid configuration: ${variable}: ${message}`, { variable });
  }
}
