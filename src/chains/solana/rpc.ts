import { Connection, SolanaJSONRPCError } from '@solana/web3.js';
import { JsonRpcError } from './json-rpc';

/** Per call: a mainnet getBlock (~3 MB) from a distant provider takes a few seconds at worst. */
export const RPC_TIMEOUT_MS = 15_000;

/** One timed round trip, for the daemon's RPC metrics (method, milliseconds, outcome). */
export type RpcTimer = (method: string, ms: number, ok: boolean) => void;

/**
 * The adapter's JSON-RPC: an unchanged web3.js Connection at `finalized` commitment, every call
 * timed. web3.js's own retry on HTTP 429 is off: the watch backs off itself, per network, and a
 * rate-limited provider must not stall a payout step inside the library. getBlock does not go
 * through the Connection (block-fetch.ts, block-thread.ts); its calls are timed here all the same.
 */
export class SolanaRpc {
  readonly connection: Connection;

  constructor(
    url: string,
    private readonly timer?: RpcTimer,
    timeoutMs = RPC_TIMEOUT_MS,
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
}

/** The JSON-RPC error code of a failure (web3.js's SolanaJSONRPCError or our JsonRpcError), null for transport failures. */
export function rpcErrorCode(error: unknown): number | null {
  if (error instanceof JsonRpcError) return error.code;
  return error instanceof SolanaJSONRPCError && typeof error.code === 'number' ? error.code : null;
}
