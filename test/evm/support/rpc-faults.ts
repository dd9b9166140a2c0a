/**
 * What a real provider does that a hardhat node never does, taught to the JSON-RPC proxy
 * (rpc-proxy.ts). Each fault is off (null / 0) until a test sets it; they can change at any time.
 */
export interface RpcFaults {
  /**
   * eth_getLogs answered by a backend `blocks` behind the node, for the eth_getLogs calls `when`
   * selects (by the 0-based count of the eth_getLogs calls of the same kind, range or by hash, the
   * proxy received). As an older geth does: a
   * range's `toBlock` is clamped to that backend's head without an error (fewer logs, or [] when the
   * whole range is above it); a `blockHash` above it fails with -32000 "unknown block".
   */
  lagLogs: { readonly blocks: number; readonly when: (call: number, byHash: boolean) => boolean } | null;
  /** eth_getLogs over more than this many blocks is refused as Infura does: -32602 "range N exceeds limit of M". */
  refuseRangeAbove: number | null;
  /** eth_blockNumber answers this height: the head node stalls while the chain goes on (the watcher falls behind). */
  frozenHead: number | null;
  /** The next this many eth_getLogs calls hang: no answer until the proxy closes. */
  hangGetLogs: number;
}

export function noFaults(): RpcFaults {
  return { lagLogs: null, refuseRangeAbove: null, frozenHead: null, hangGetLogs: 0 };
}

export interface JsonRpcCall {
  readonly id?: unknown;
  readonly method: string;
  readonly params?: unknown[];
}

/** Which fault acted on a call (the proxy counts them, so a test can show its fault really happened). */
export type FaultName = 'clamped' | 'unknown_block' | 'refused' | 'hung' | 'frozen_head';

/** How the proxy answers one call: forwarded (maybe rewritten), answered here, or never. */
export type FaultAction = { kind: 'forward'; call: JsonRpcCall; fault?: FaultName } | { kind: 'answer'; body: unknown; fault: FaultName } | { kind: 'hang'; fault: 'hung' };

interface LogFilter {
  fromBlock?: string;
  toBlock?: string;
  blockHash?: string;
  [key: string]: unknown;
}

const hex = (n: number): string => `0x${n.toString(16)}`;

/** The node's own answer to one call (the proxy's upstream). */
export type Upstream = (method: string, params: unknown[]) => Promise<unknown>;

/** Applies the faults to one (non-batch) call. `getLogsCall`: this eth_getLogs call's 0-based index among those of its kind (range or by hash). */
export async function applyFaults(faults: RpcFaults, call: JsonRpcCall, upstream: Upstream, getLogsCall: number): Promise<FaultAction> {
  const reply = (result: unknown, fault: FaultName): FaultAction => ({ kind: 'answer', body: { jsonrpc: '2.0', id: call.id ?? null, result }, fault });
  const fail = (code: number, message: string, fault: FaultName): FaultAction => ({ kind: 'answer', body: { jsonrpc: '2.0', id: call.id ?? null, error: { code, message } }, fault });
  if (call.method === 'eth_blockNumber' && faults.frozenHead !== null) return reply(hex(faults.frozenHead), 'frozen_head');
  if (call.method !== 'eth_getLogs') return { kind: 'forward', call };
  if (faults.hangGetLogs > 0) {
    faults.hangGetLogs -= 1;
    return { kind: 'hang', fault: 'hung' };
  }
  if (faults.lagLogs === null && faults.refuseRangeAbove === null) return { kind: 'forward', call };
  const filter = { ...((call.params?.[0] ?? {}) as LogFilter) };
  const head = Number(await upstream('eth_blockNumber', []));
  const resolve = (tag: string | undefined): number => (tag === undefined || tag === 'latest' || tag === 'safe' || tag === 'finalized' ? head : tag === 'earliest' ? 0 : Number(tag));
  if (filter.blockHash === undefined && faults.refuseRangeAbove !== null) {
    const size = resolve(filter.toBlock) - resolve(filter.fromBlock) + 1;
    if (size > faults.refuseRangeAbove) return fail(-32602, `range ${size} exceeds limit of ${faults.refuseRangeAbove}`, 'refused');
  }
  const lag = faults.lagLogs;
  if (lag === null || !lag.when(getLogsCall, filter.blockHash !== undefined)) return { kind: 'forward', call };
  const laggingHead = head - lag.blocks;
  if (filter.blockHash !== undefined) {
    const block = (await upstream('eth_getBlockByHash', [filter.blockHash, false])) as { number: string } | null;
    if (block === null || Number(block.number) > laggingHead) return fail(-32000, 'unknown block', 'unknown_block');
    return { kind: 'forward', call };
  }
  const from = resolve(filter.fromBlock);
  const to = Math.min(resolve(filter.toBlock), laggingHead);
  if (to >= resolve(filter.toBlock)) return { kind: 'forward', call }; // the lagging backend has the whole range
  if (from > to) return reply([], 'clamped');
  return { kind: 'forward', call: { ...call, params: [{ ...filter, fromBlock: hex(from), toBlock: hex(to) }] }, fault: 'clamped' };
}
