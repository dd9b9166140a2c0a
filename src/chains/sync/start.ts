import type { BlockRef, ChainObservation } from '../types';
import { InconsistentChainError, ReorgBeyondFinalityError } from './errors';
import type { StepContext, SyncState } from './step';
import { BlockWindow } from './window';

/**
 * The state to start from. Resuming from a saved cursor with the saved last final block, that block
 * is the anchor, and it must still be on the chain: if it was replaced (a reorg deeper than
 * finality while we were down) nothing is emitted and ReorgBeyondFinalityError stops the follower.
 * Without a saved final block, the block `confirmations - 1` below the cursor is taken as the
 * anchor (it was final when the cursor was saved): a reorg found later walks back at most to it.
 * A first run starts at the current head and emits that block so its cursor is saved.
 */
export async function startState(ctx: StepContext, from: BlockRef | null, finalized: BlockRef | null = null): Promise<{ state: SyncState; observations: ChainObservation[] }> {
  if (from !== null && finalized !== null && finalized.height <= from.height) return { state: await verifiedAnchor(ctx, from, finalized), observations: [] };
  if (from !== null) return { state: await anchored(ctx, from), observations: [] };
  const head = await ctx.source.head();
  const tip = await ctx.source.block(head);
  if (tip === null) throw new InconsistentChainError(`head block ${head} not available`, { height: head });
  const state = await anchored(ctx, { height: tip.height, hash: tip.hash });
  const observation: ChainObservation = { kind: 'block', network: ctx.network, height: tip.height, hash: tip.hash, parentHash: tip.parentHash, timestamp: tip.timestamp, cursor: ctx.cursor(tip) };
  return { state, observations: [observation] };
}

async function anchored(ctx: StepContext, tip: BlockRef): Promise<SyncState> {
  const anchorHeight = Math.max(0, tip.height - ctx.confirmations + 1);
  if (anchorHeight === tip.height) return { tip, window: new BlockWindow([tip]), finalized: tip };
  const block = await ctx.source.block(anchorHeight);
  if (block === null) throw new InconsistentChainError(`chain is behind the cursor (block ${anchorHeight} missing)`, { height: anchorHeight });
  const anchor = { height: block.height, hash: block.hash };
  return { tip, window: new BlockWindow([anchor, tip]), finalized: anchor };
}

async function verifiedAnchor(ctx: StepContext, tip: BlockRef, final: BlockRef): Promise<SyncState> {
  const block = await ctx.source.block(final.height);
  if (block === null) throw new InconsistentChainError(`chain is behind the last final block ${final.height}`, { height: final.height });
  if (block.hash !== final.hash) throw new ReorgBeyondFinalityError(ctx.network, { finalizedHeight: final.height, finalizedHash: final.hash, tipHeight: tip.height });
  const anchor = { height: final.height, hash: final.hash };
  if (anchor.height === tip.height) return { tip, window: new BlockWindow([tip]), finalized: anchor };
  return { tip, window: new BlockWindow([anchor, tip]), finalized: anchor };
}
