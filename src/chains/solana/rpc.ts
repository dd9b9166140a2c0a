import { Connection, SolanaJSONRPCError } from '@solana/web3.js';
import { JsonRpcError, postJsonRpc } from './json-rpc';

/** One timed round trip, for the daemon's RPC metrics (method, milliseconds, outcome). */
export type RpcTimer = (method: string, ms: number, ok: boolean) => void;

/**
 * The adapter's JSON-RPC: an unchanged web3.js Connection at `finalized` commitment, every call
 * timed. web3.js's own retry on HTTP 429 is off: the watch backs off itself, per network, and a
 * rate-limited provider must not stall a payout step inside the library. `request` is a plain
 * JSON-RPC call (parsed, unvalidated) for getBlock, whose caller checks only what it reads.
 */
export class SolanaRpc {
  readonly connection: Connection;

  constructor(
    private readonly url: string,
    private readonly timer?: RpcTimer,
    private readonly timeoutMs = 15_000,
  ) {
    const timedFetch = (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    this.connection = new Connection(url, { commitment: 'finalized', disableRetryOnRateLimit: true, fetch: timedFetch as never });
  }

  async call<T>(method: string, fn: (connection: Connection) => Promise<T>): Promise<T> {
    const started = performance.now();
    try {
      const result = await fn(this.connection);
      this.timer?.(method, performance.now() - started, true);
      return result;
    } catch (error) {
      this.timer?.(method, performance.now() - started, false);
      throw error;
    }
  }

  /** One JSON-RPC call, its result as JSON.parse gave it (unchecked); timed as `method`. */
  request(method: string, params: readonly unknown[]): Promise<unknown> {
    return this.call(method, () => postJsonRpc(this.url, method, params, this.timeoutMs));
  }
}

/** The JSON-RPC error code of a failure (web3.js's SolanaJSONRPCError or our JsonRpcError), null for transport failures. */
export function rpcErrorCode(error: unknown): number | null {
  if (error instanceof JsonRpcError) return error.code;
  return error instanceof SolanaJSONRPCError && typeof error.code === 'number' ? error.code : null;
}
