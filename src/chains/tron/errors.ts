import type { NetworkCode } from '../../domain/networks';
import { ChainSyncError } from '../sync/errors';

export type TronErrorDetails = Record<string, string | number | boolean | null | undefined>;

/** Errors of the TRON adapter; callers branch on the class or `code`, never on the message. */
export abstract class TronAdapterError extends Error {
  abstract override readonly name: string;
  abstract readonly code: string;
  constructor(
    message: string,
    readonly details: TronErrorDetails = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * The node did not answer usefully: network failure, timeout, HTTP 429 or 5xx after the client's
 * own retries. A ChainSyncError so the block follower retries it with backoff (never fatal).
 */
export class TronNodeUnavailableError extends ChainSyncError {
  override readonly name = 'TronNodeUnavailableError';
  readonly code = 'rpc_unavailable';
  readonly retryable = true;
  constructor(path: string, reason: string, details: { status?: number; attempts: number }, options?: { cause?: unknown }) {
    super(`TRON node ${path}: ${reason}`, { path, ...details }, options);
  }
}

/**
 * The provider refused for its call budget: HTTP 429, 503, or TronGrid's 403 with a JSON body
 * naming its frequency limit (the key is suspended for ~30 s). After the client's own backoff and
 * retries; a ChainSyncError the follower retries with backoff (a budget never fails a watch).
 */
export class TronRateLimitedError extends ChainSyncError {
  override readonly name = 'TronRateLimitedError';
  readonly code = 'rpc_rate_limited';
  readonly retryable = true;
  constructor(path: string, status: number, attempts: number) {
    super(`TRON node ${path}: rate limited (HTTP ${status})`, { path, status, attempts });
  }
}

/** The node answered with a status or body no retry will change (4xx other than 429, not JSON). */
export class TronNodeResponseError extends TronAdapterError {
  override readonly name = 'TronNodeResponseError';
  readonly code = 'tron_node_bad_response';
  constructor(path: string, reason: string, status: number) {
    super(`TRON node ${path}: ${reason}`, { path, status });
  }
}

/** The TRON live options are missing or invalid; `variable` names the environment variable. */
export class TronConfigError extends TronAdapterError {
  override readonly name = 'TronConfigError';
  readonly code = 'tron_config_invalid';
  constructor(
    readonly variable: string,
    readonly reason: string,
  ) {
    super(`invalid configuration: ${variable}: ${reason}`, { variable });
  }
}

/** init(): the configured token is not a contract on this chain; `variable` says what to fix. */
export class TronTokenContractMissingError extends TronAdapterError {
  override readonly name = 'TronTokenContractMissingError';
  readonly code = 'token_not_a_contract';
  constructor(network: NetworkCode, token: string) {
    super(`${network}: no contract at token address ${token}: check TRC20_TOKEN_ADDRESS (and that TRC20_RPC_URL serves TRON mainnet)`, { network, token, variable: 'TRC20_TOKEN_ADDRESS' });
  }
}

/** init(): decimals() is not 6: amounts would be off by powers of ten. */
export class TronTokenDecimalsError extends TronAdapterError {
  override readonly name = 'TronTokenDecimalsError';
  readonly code = 'token_decimals_mismatch';
  constructor(network: NetworkCode, token: string, expected: number, actual: string) {
    super(`${network}: token ${token} has ${actual} decimals, expected ${expected}: check TRC20_TOKEN_ADDRESS`, { network, token, expected, actual, variable: 'TRC20_TOKEN_ADDRESS' });
  }
}

/** A method that needs init() was called before it. */
export class TronNotInitializedError extends TronAdapterError {
  override readonly name = 'TronNotInitializedError';
  readonly code = 'adapter_not_initialized';
  constructor(network: NetworkCode) {
    super(`${network}: call init() first`, { network });
  }
}
