import type { NetworkCode } from '../../domain/networks';

export type SyncErrorDetails = Record<string, string | number | boolean | null | undefined>;

/**
 * Errors of block sources and the follower. The run loop decides what to do by the `retryable`
 * flag of the class (retry-rule.ts), never by message text.
 */
export abstract class ChainSyncError extends Error {
  abstract override readonly name: string;
  /** snake_case, stable: shown in watcher status and alerts. */
  abstract readonly code: string;
  /** false: the follower stops (an operator must act). */
  abstract readonly retryable: boolean;
  constructor(
    message: string,
    readonly details: SyncErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The RPC failed in a way worth retrying (network, timeout, 5xx, rate limit, node busy). */
export class RpcTransientError extends ChainSyncError {
  override readonly name = 'RpcTransientError';
  readonly code = 'rpc_unavailable';
  readonly retryable = true;
}

/**
 * The provider refused the block range (too many blocks or results): the follower narrows its
 * ranges below `blocks` (the refused range's size) and grows them back as calls succeed (RangeSize).
 */
export class RangeTooLargeError extends ChainSyncError {
  override readonly name = 'RangeTooLargeError';
  readonly code = 'rpc_range_too_large';
  readonly retryable = true;
  constructor(
    message: string,
    readonly blocks: number | null = null,
    details: SyncErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, { ...details, blocks }, options);
  }
}

/**
 * The RPC did not answer within its timeout. Retried with backoff like any transient failure, on
 * the same range: a timeout is not a refusal (a hung connection says nothing about the range's
 * size). Only a range that times out again and again is narrowed (RangeSize.timedOut).
 */
export class RpcTimeoutError extends ChainSyncError {
  override readonly name = 'RpcTimeoutError';
  readonly code = 'rpc_timeout';
  readonly retryable = true;
  constructor(
    message: string,
    /** Blocks of the range the timed-out call asked for (1 for a single-block call). */
    readonly blocks: number,
    details: SyncErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, { ...details, blocks }, options);
  }
}

/** The answers of one step do not fit together (a reorg or a lagging backend mid-step): retried. */
export class InconsistentChainError extends ChainSyncError {
  override readonly name = 'InconsistentChainError';
  readonly code = 'chain_inconsistent';
  readonly retryable = true;
}

/**
 * A block already emitted as final was replaced. Never retried: continuing would either lose or
 * double-credit final payments, so the watcher stops and raises an alert.
 */
export class ReorgBeyondFinalityError extends ChainSyncError {
  override readonly name = 'ReorgBeyondFinalityError';
  readonly code = 'reorg_beyond_finality';
  readonly retryable = false;
  /** `creditedTx`: the replaced block holds a payment already credited (confirmed) to an invoice. */
  constructor(network: NetworkCode, details: { finalizedHeight: number; finalizedHash: string; tipHeight: number; creditedTx?: string }) {
    const what = details.creditedTx ? `block ${details.finalizedHeight} with the credited payment ${details.creditedTx}` : `final block ${details.finalizedHeight}`;
    super(`${network}: reorg deeper than finality (${what} replaced)`, { network, ...details });
  }
}
