import type { NetworkCode } from '../../domain/networks';
import type { BlockRef, ChainCursor, ChainObservation, TransferObservation, UnstampedTransfer } from '../types';
import { blockDepth } from './depth';
import { InconsistentChainError } from './errors';
import { assertLinked, fetchHeaders } from './headers';
import { planRange, plannedHeights, type RangePlan } from './range-plan';
import type { BlockHeader, BlockSource } from './types';
import { findCommonAncestor } from './walk-back';
import type { BlockWindow } from './window';

export interface StepContext {
  readonly network: NetworkCode;
  readonly source: BlockSource;
  readonly confirmations: number;
  readonly maxRange: number;
  readonly headerConcurrency: number;
  /** The family's cursor of a block (FollowerOptions.cursorOf; default blockCursor: { height, hash }). */
  readonly cursor: (block: BlockRef) => ChainCursor;
}

/** What the follower has delivered: its tip, the known hashes down to the last final block. */
export interface SyncState {
  readonly tip: BlockRef;
  readonly window: BlockWindow;
  readonly finalized: BlockRef;
}

/** One step's observations, to emit in order, and the state to commit once they are all accepted. */
export interface StepResult {
  readonly head: number;
  readonly idle: boolean;
  readonly observations: ChainObservation[];
  readonly next: SyncState;
  /** Blocks of the range read by this step (0: nothing read, idle or a reorg): the range size's success signal. */
  readonly scanned: number;
}

/** One unit of progress: scan the next range, detect a reorg, or find nothing new. Reads only. */
export async function syncStep(ctx: StepContext, state: SyncState): Promise<StepResult> {
  const head = await ctx.source.head();
  if (head <= state.tip.height) return checkTip(ctx, state, head);
  const finalCap = ctx.source.finalHeight ? await ctx.source.finalHeight(head - ctx.confirmations + 1) : Number.POSITIVE_INFINITY;
  const plan = planRange(state.tip.height, head, ctx.confirmations, ctx.maxRange, finalCap);
  const headers = await fetchHeaders(ctx.source, plannedHeights(plan), ctx.headerConcurrency);
  if (headers.get(plan.start)!.parentHash !== state.tip.hash) return reorg(ctx, state, state.tip.height, head);
  if (!plan.final) assertLinked(headers, plan.start, plan.end);
  const transfers = checkTransfers(await ctx.source.transfers(plan.start, plan.end, headers), plan, headers);
  return advance(ctx, state, head, plan, headers, await stampBlockTimes(ctx, transfers, headers), finalCap);
}

/** Nothing above our tip: make sure the chain still holds our block at the head's height. */
async function checkTip(ctx: StepContext, state: SyncState, head: number): Promise<StepResult> {
  const known = state.window.highestAtOrBelow(head);
  if (known === null) return { head, idle: true, observations: [], next: state, scanned: 0 };
  const block = await ctx.source.block(known.height);
  if (block !== null && block.hash === known.hash) return { head, idle: true, observations: [], next: state, scanned: 0 };
  return reorg(ctx, state, known.height, head);
}

async function reorg(ctx: StepContext, state: SyncState, fromHeight: number, head: number): Promise<StepResult> {
  const ancestor = await findCommonAncestor(ctx.network, ctx.source, state.window, fromHeight, state.tip.height);
  // Our tip is still on the chain, yet the next block does not extend it: the node contradicts
  // itself (a lagging backend behind a load balancer). Retry rather than emit an empty reorg.
  if (ancestor.height === state.tip.height) throw new InconsistentChainError(`block ${ancestor.height + 1} does not extend the tip`, { height: ancestor.height });
  const observation: ChainObservation = { kind: 'reorg', network: ctx.network, commonAncestor: ancestor, depth: state.tip.height - ancestor.height, cursor: ctx.cursor(ancestor) };
  const next: SyncState = { tip: ancestor, window: state.window.slice(0, ancestor.height).with([ancestor]), finalized: state.finalized };
  return { head, idle: false, observations: [observation], next, scanned: 0 };
}

/** A transfer with its block's time, before its depth is counted. */
type Stamped = Omit<TransferObservation, 'confirmations' | 'final'>;

function advance(ctx: StepContext, state: SyncState, head: number, plan: RangePlan, headers: Map<number, BlockHeader>, transfers: Stamped[], finalCap: number): StepResult {
  const last = headers.get(plan.end)!;
  let window = state.window.with([...headers.values()].map(({ height, hash }) => ({ height, hash })));
  // Each transfer's depth as of this step's last block, the cursor its block observation carries
  // (not final above what the chain holds irreversible, as for the finalize observation below).
  const observations: ChainObservation[] = transfers.map((t) => ({ ...t, ...blockDepth(t.blockHeight, plan.end, ctx.confirmations, finalCap) }));
  observations.push({ kind: 'block', network: ctx.network, height: last.height, hash: last.hash, parentHash: last.parentHash, timestamp: last.timestamp, cursor: ctx.cursor(last) });
  let finalized = state.finalized;
  // Final = has the required confirmations counted from our tip, and is at or below what the chain
  // itself holds irreversible (BlockSource.finalHeight); only blocks whose hash we know.
  const candidate = window.highestAtOrBelow(Math.min(plan.end - ctx.confirmations + 1, finalCap));
  if (candidate !== null && candidate.height > finalized.height) {
    finalized = candidate;
    observations.push({ kind: 'finalize', network: ctx.network, height: candidate.height, hash: candidate.hash, cursor: ctx.cursor(candidate) });
  }
  window = window.slice(finalized.height, plan.end);
  return { head, idle: false, observations, next: { tip: { height: last.height, hash: last.hash }, window, finalized }, scanned: plan.end - plan.start + 1 };
}

/** In block order, once each; every transfer must belong to the headers we hold for its height. */
function checkTransfers(transfers: UnstampedTransfer[], plan: RangePlan, headers: Map<number, BlockHeader>): UnstampedTransfer[] {
  const seen = new Map<string, UnstampedTransfer>();
  for (const t of transfers) {
    if (t.blockHeight < plan.start || t.blockHeight > plan.end) {
      throw new InconsistentChainError(`transfer at ${t.blockHeight} outside ${plan.start}-${plan.end}`, { txHash: t.txHash });
    }
    const header = headers.get(t.blockHeight);
    if (header !== undefined && header.hash !== t.blockHash) {
      throw new InconsistentChainError(`transfer ${t.txHash} is on another branch`, { txHash: t.txHash, height: t.blockHeight });
    }
    seen.set(`${t.txHash}:${t.eventIndex}`, t);
  }
  return [...seen.values()].sort((a, b) => a.blockHeight - b.blockHeight || a.eventIndex - b.eventIndex);
}

/**
 * Each transfer gets its block's timestamp (invoices judge "paid in time" by it). A final range
 * holds only its first and last headers; the header of every other block that holds a match is
 * fetched (once per block), and must be the transfer's block. Nothing is asked of the watcher: the
 * RPC calls of a range grow with the blocks that hold our transfers, never with the number of
 * watched addresses or open invoices.
 */
async function stampBlockTimes(ctx: StepContext, transfers: UnstampedTransfer[], headers: Map<number, BlockHeader>): Promise<Stamped[]> {
  const needed = [...new Set(transfers.filter((t) => !headers.has(t.blockHeight)).map((t) => t.blockHeight))];
  const extra = needed.length > 0 ? await fetchHeaders(ctx.source, needed, ctx.headerConcurrency) : new Map<number, BlockHeader>();
  return transfers.map((t) => {
    const header = (headers.get(t.blockHeight) ?? extra.get(t.blockHeight))!;
    if (header.hash !== t.blockHash) throw new InconsistentChainError(`transfer ${t.txHash} is on another branch`, { txHash: t.txHash, height: t.blockHeight });
    return { ...t, blockTime: header.timestamp };
  });
}
