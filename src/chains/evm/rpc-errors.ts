import { BaseError, InvalidInputRpcError, InvalidParamsRpcError, LimitExceededRpcError, TimeoutError } from 'viem';
import { ChainSyncError, RangeTooLargeError, RpcTimeoutError, RpcTransientError } from '../sync/errors';

/**
 * Error classes that mean "this eth_getLogs range is too much": the JSON-RPC refusals providers use
 * for too many blocks or results (-32005 Infura/erigon, -32602 Infura/QuickNode/reth, -32000
 * geth-based nodes). A timeout is not one of them: it is retried as a timeout (RpcTimeoutError), on
 * the same range; the follower narrows a range only when it keeps timing out (RangeSize).
 */
const RANGE_REFUSALS = [LimitExceededRpcError, InvalidParamsRpcError, InvalidInputRpcError];

/**
 * viem error -> sync error class, by viem's error class (which viem derives from the JSON-RPC
 * code), never by message text. `blocks` > 1 marks a range query that may be narrowed.
 */
export function classifyRpcError(error: unknown, method: string, blocks = 1): Error {
  if (error instanceof ChainSyncError) return error;
  if (!(error instanceof BaseError)) return new RpcTransientError(`${method} failed`, { method }, { cause: error });
  if (error.walk((e) => e instanceof TimeoutError)) return new RpcTimeoutError(`${method} timed out`, blocks, { method }, { cause: error });
  const refusal = error.walk((e) => RANGE_REFUSALS.some((cls) => e instanceof cls));
  const code = rpcCode(error);
  if (refusal && blocks > 1) return new RangeTooLargeError(`${method} refused ${blocks} blocks`, blocks, { method, code }, { cause: error });
  return new RpcTransientError(`${method} failed: ${error.shortMessage}`, { method, code }, { cause: error });
}

function rpcCode(error: BaseError): number | null {
  const withCode = error.walk((e) => typeof (e as { code?: unknown }).code === 'number') as { code?: number } | null;
  return withCode?.code ?? null;
}

/** Runs one RPC call and rethrows its failure as a classified sync error. */
export async function rpc<T>(method: string, call: () => Promise<T>, blocks = 1): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw classifyRpcError(error, method, blocks);
  }
}
