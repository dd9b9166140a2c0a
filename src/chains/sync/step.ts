import type { NetworkCode } from '../../domain/networks';
import type { ChainCursor, ChainObservation, TransferObservation, UnstampedTransfer, WatchOptions } from '../types';
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
  readonly needsExactBlockTime?: WatchOptions['needsExactBlockTime'];
}

/** What the follower has delivered: its tip, the known hashes down to the last final block. */
export interface SyncState {
  readonly tip: ChainCursor;
  readonly window: BlockWindow;
  readonly finalized: ChainCursor;
}

/** One step's observations, to emit in order, and the state to commit once they are all accepted. */
export interface StepResult {
  readonly head: number;
  readonly idle: boolean;
  readonly observations: ChainObservation[];
  readonly next: SyncState;
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
  const transfers = checkTransfers(await ctx.source.transfers(plan.start, plan.end), plan, headers);
  return advance(ctx, state, head, plan, headers, await stampBlockTimes(ctx, plan, transfers, headers), finalCap);
}

/** Nothing above our tip: make sure the chain still holds our block at the head's height. */
async function checkTip(ctx: StepContext, state: SyncState, head: number): Promise<StepResult> {
  const known = state.window.highestAtOrBelow(head);
  if (known === null) return { head, idle: true, observations: [], next: state };
  const block = await ctx.source.block(known.height);
  if (block !== null && block.hash === known.hash) return { head, idle: true, observations: [], next: state };
  return reorg(ctx, state, known.height, head);
}

async function reorg(ctx: StepContext, state: SyncState, fromHeight: number, head: number): Promise<StepResult> {
  const ancestor = await findCommonAncestor(ctx.network, ctx.source, state.window, fromHeight, state.tip.height);
  // Our tip is still on the chain, yet the next block does not extend it: the node contradicts
  // itself (a lagging backend behind a load balancer). Retry rather than emit an empty reorg.
  if (ancestor.height === state.tip.height) throw new InconsistentChainError(`block ${ancestor.height + 1} does not extend the tip`, { height: ancestor.height });
  const observation: ChainObservation = { kind: 'reorg', network: ctx.network, commonAncestor: ancestor, depth: state.tip.height - ancestor.height };
  const next: SyncState = { tip: ancestor, window: state.window.slice(0, ancestor.height).with([ancestor]), finalized: state.finalized };
  return { head, idle: false, observations: [observation], next };
}

function advance(ctx: StepContext, state: SyncState, head: number, plan: RangePlan, headers: Map<number, BlockHeader>, transfers: TransferObservation[], finalCap: number): StepResult {
  const last = headers.get(plan.end)!;
  let window = state.window.with([...headers.values()].map(({ height, hash }) => ({ height, hash })));
  const observations: ChainObservation[] = [...transfers];
  observations.push({ kind: 'block', network: ctx.network, height: last.height, hash: last.hash, parentHash: last.parentHash, timestamp: last.timestamp });
  let finalized = state.finalized;
  // Final = has the required confirmations counted from our tip, and is at or below what the chain
  // itself holds irreversible (BlockSource.finalHeight); only blocks whose hash we know.
  const candidate = window.highestAtOrBelow(Math.min(plan.end - ctx.confirmations + 1, finalCap));
  if (candidate !== null && candidate.height > finalized.height) {
    finalized = candidate;
    observations.push({ kind: 'finalize', network: ctx.network, height: candidate.height, hash: candidate.hash });
  }
  window = window.slice(finalized.height, plan.end);
  return { head, idle: false, observations, next: { tip: { height: last.height, hash: last.hash }, window, finalized } };
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
 * holds only its first and last headers, and block times never decrease, so a transfer inside it
 * was mined between the two. Only when that is not precise enough for its invoice
 * (ctx.needsExactBlockTime: a deadline in between) is its block's header fetched, and then it must
 * be the transfer's block; the others carry the range's last time. So the RPC calls of a range do
 * not grow with the number of watched addresses or payments.
 */
async function stampBlockTimes(ctx: StepContext, plan: RangePlan, transfers: UnstampedTransfer[], headers: Map<number, BlockHeader>): Promise<TransferObservation[]> {
  const earliest = headers.get(plan.start)!.timestamp;
  const latest = headers.get(plan.end)!.timestamp;
  const inexact = transfers.filter((t) => !headers.has(t.blockHeight));
  const needed = new Set<number>();
  if (earliest.getTime() !== latest.getTime()) {
    const answers = await Promise.all(inexact.map(async (t) => (ctx.needsExactBlockTime ? ctx.needsExactBlockTime(t, earliest, latest) : true)));
    inexact.forEach((t, i) => answers[i] && needed.add(t.blockHeight));
  }
  const extra = needed.size > 0 ? await fetchHeaders(ctx.source, [...needed], ctx.headerConcurrency) : new Map<number, BlockHeader>();
  return transfers.map((t) => {
    const header = headers.get(t.blockHeight) ?? extra.get(t.blockHeight);
    if (header === undefined) return { ...t, blockTime: latest };
    if (header.hash !== t.blockHash) throw new InconsistentChainError(`transfer ${t.txHash} is on another branch`, { txHash: t.txHash, height: t.blockHeight });
    return { ...t, blockTime: header.timestamp };
  });
}
