import { createPublicClient, http, type PublicClient } from 'viem';

/** Called after every JSON-RPC HTTP round trip: method (or "batch"), wall time, HTTP success. */
export type RpcTiming = (method: string, ms: number, ok: boolean) => void;

function methodOf(body: unknown): string {
  if (typeof body !== 'string') return 'unknown';
  try {
    const parsed = JSON.parse(body) as { method?: string } | unknown[];
    return Array.isArray(parsed) ? 'batch' : (parsed.method ?? 'unknown');
  } catch {
    return 'unknown';
  }
}

/**
 * One JSON-RPC client per adapter. viem's own retries are off: the watcher retries with its own
 * backoff and classification, and payout calls are retried by the withdrawal actor.
 */
export function createEvmClient(rpcUrl: string, timeoutMs: number, onTiming?: RpcTiming): PublicClient {
  const fetchFn: typeof fetch | undefined = onTiming
    ? async (input, init) => {
        const started = performance.now();
        const method = methodOf(init?.body);
        try {
          const res = await fetch(input, init);
          onTiming(method, performance.now() - started, res.ok);
          return res;
        } catch (error) {
          onTiming(method, performance.now() - started, false);
          throw error;
        }
      }
    : undefined;
  return createPublicClient({ transport: http(rpcUrl, { timeout: timeoutMs, retryCount: 0, ...(fetchFn ? { fetchFn } : {}) }) });
}
