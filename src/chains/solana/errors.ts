import type { PayoutOperatorAlert } from '../errors';
import { ChainSyncError } from '../sync/errors';

export type SolanaErrorDetails = Record<string, string | number | boolean | null | undefined>;

/** Solana JSON-RPC error codes (agave rpc_custom_error.rs) the adapter tells apart; by code, never by message. */
export const RPC_BLOCK_NOT_AVAILABLE = -32004;
export const RPC_SLOT_SKIPPED = -32007;
export const RPC_LONG_TERM_STORAGE_SLOT_SKIPPED = -32009;

/** getBlock -32004: the node has not got this finalized block yet. Retried. */
export class BlockNotAvailableError extends ChainSyncError {
  override readonly name = 'BlockNotAvailableError';
  readonly code = 'solana_block_not_available';
  readonly retryable = true;
}

/**
 * getBlock -32009: the slot is missing from the provider's long-term storage (or was skipped, it
 * cannot tell). Skipping it could lose a payment, so it is retried (an operator switches to a
 * provider with full history) and never passed over: the next block's parentSlot decides.
 */
export class SlotMissingFromStorageError extends ChainSyncError {
  override readonly name = 'SlotMissingFromStorageError';
  readonly code = 'solana_slot_missing_from_storage';
  readonly retryable = true;
}

/** Any other RPC failure of the watch (network, 5xx, 429, unknown JSON-RPC error). Retried with backoff. */
export class SolanaRpcError extends ChainSyncError {
  override readonly name = 'SolanaRpcError';
  readonly code = 'rpc_unavailable';
  readonly retryable = true;
}

/**
 * A getBlock answer without a field the watch reads, or of the wrong type (a provider fault, or an
 * API change): nothing of the block is used, the slot is read again with backoff, never passed over.
 */
export class MalformedBlockError extends ChainSyncError {
  override readonly name = 'MalformedBlockError';
  readonly code = 'solana_malformed_block';
  readonly retryable = true;
}

/** Errors of the SOLANA adapter outside the watch; callers branch on the class or `code`. */
export abstract class SolanaAdapterError extends Error {
  abstract override readonly name: string;
  abstract readonly code: string;
  constructor(
    message: string,
    readonly details: SolanaErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A method that needs init() was called before it. */
export class SolanaNotInitializedError extends SolanaAdapterError {
  override readonly name = 'SolanaNotInitializedError';
  readonly code = 'adapter_not_initialized';
  constructor() {
    super('SOLANA: call init() first');
  }
}

/**
 * The hot wallet has too little SOL for this payout's fees (and the payee's token account rent).
 * Not a permanent refusal: the withdrawal keeps waiting (signing is retried) until an operator
 * funds the wallet; the message names wallet, balance and need.
 */
export class SolanaHotWalletUnderfundedError extends SolanaAdapterError {
  override readonly name = 'SolanaHotWalletUnderfundedError';
  readonly code = 'payout_hot_wallet_underfunded';
  readonly operatorAlert: PayoutOperatorAlert = 'hot_wallet_underfunded';
  constructor(details: { wallet: string; balance: string; needed: string }) {
    super(`SOLANA hot wallet ${details.wallet} has ${details.balance} SOL; this payout needs ${details.needed} SOL for fees and the payee's token account rent: send SOL to it`, details);
  }
}

/** The hot wallet holds less USDT than the payout sends: refused (the withdrawal fails, its amount is released). */
export class SolanaInsufficientTokenError extends SolanaAdapterError {
  override readonly name = 'SolanaInsufficientTokenError';
  readonly code = 'payout_insufficient_token';
  constructor(details: { wallet: string; balance: string; needed: string }) {
    super(`SOLANA hot wallet ${details.wallet} holds ${details.balance} USDT; this payout sends ${details.needed}: send USDT to it, then the merchant can withdraw again`, details);
  }
}

/** sendTransaction failed (network or node); the same signed transaction is sent again later. */
export class SolanaBroadcastError extends SolanaAdapterError {
  override readonly name = 'SolanaBroadcastError';
  readonly code = 'payout_broadcast_failed';
  constructor(signature: string, cause: unknown) {
    super(`SOLANA: sending ${signature} failed`, { signature }, { cause });
  }
}
