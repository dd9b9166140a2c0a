import { createPublicClient, http, type PublicClient } from 'viem';

/**
 * One JSON-RPC client per adapter. viem's own retries are off: the watcher retries with its own
 * backoff and classification, and payout calls are retried by the withdrawal actor.
 */
export function createEvmClient(rpcUrl: string, timeoutMs: number): PublicClient {
  return createPublicClient({ transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0 }) });
}
