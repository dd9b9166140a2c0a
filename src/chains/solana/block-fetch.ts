import { readSlotBlock, type SlotBlock } from './block-reader';
import { MalformedBlockError } from './errors';
import { JsonRpcError, JsonRpcTransportError, postJsonRpc } from './json-rpc';

/** getBlock of one finalized slot, read for the mint: the block, or null (the node has none yet). */
export interface BlockFetcher {
  fetch(slot: number): Promise<SlotBlock | null>;
  close(): Promise<void>;
}

/** Where and what a fetcher reads (the block thread gets these as its workerData). */
export interface BlockFetchConfig {
  readonly url: string;
  readonly mint: string;
  readonly timeoutMs: number;
}

/** The one getBlock request of the watch: finalized, `accounts` details, no rewards, v0 transactions. */
export async function fetchSlotBlock(config: BlockFetchConfig, slot: number): Promise<SlotBlock | null> {
  const answer = await postJsonRpc(
    config.url,
    'getBlock',
    [slot, { commitment: 'finalized', encoding: 'json', transactionDetails: 'accounts', rewards: false, maxSupportedTransactionVersion: 0 }],
    config.timeoutMs,
  );
  return answer === null ? null : readSlotBlock(slot, answer, config.mint);
}

/** On the calling thread (the bench compares it with the block thread; the block thread runs it). */
export class InlineBlockFetcher implements BlockFetcher {
  constructor(private readonly config: BlockFetchConfig) {}

  fetch(slot: number): Promise<SlotBlock | null> {
    return fetchSlotBlock(this.config, slot);
  }

  async close(): Promise<void> {}
}

/** A fetch failure as it crosses the thread boundary (structured clone keeps no class). */
export type FetchFailure =
  | { readonly kind: 'rpc'; readonly message: string; readonly method: string; readonly code: number | null }
  | { readonly kind: 'transport'; readonly message: string; readonly method: string; readonly status: number | null }
  | { readonly kind: 'malformed'; readonly message: string; readonly details: Record<string, string | number | boolean | null | undefined> }
  | { readonly kind: 'other'; readonly message: string };

export function toFailure(error: unknown): FetchFailure {
  if (error instanceof JsonRpcError) return { kind: 'rpc', message: error.message, method: error.details.method, code: error.code };
  if (error instanceof JsonRpcTransportError) return { kind: 'transport', message: error.message, method: error.details.method, status: error.details.status };
  if (error instanceof MalformedBlockError) return { kind: 'malformed', message: error.message, details: { ...error.details } };
  return { kind: 'other', message: error instanceof Error ? `${error.name}: ${error.message}` : String(error) };
}

/** The error class the failure was thrown as on the block thread (anything else: a transport failure). */
export function fromFailure(failure: FetchFailure): Error {
  switch (failure.kind) {
    case 'rpc':
      return new JsonRpcError(failure.message, { method: failure.method, code: failure.code });
    case 'transport':
      return new JsonRpcTransportError(failure.message, { method: failure.method, status: failure.status });
    case 'malformed':
      return new MalformedBlockError(failure.message, failure.details);
    case 'other':
      return new JsonRpcTransportError(`getBlock: ${failure.message}`, { method: 'getBlock', status: null });
  }
}

export interface BlockJob {
  readonly id: number;
  readonly slot: number;
}

export type BlockAnswer = { readonly id: number; readonly ok: true; readonly block: SlotBlock | null } | { readonly id: number; readonly ok: false; readonly failure: FetchFailure };
