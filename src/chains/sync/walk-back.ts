import type { NetworkCode } from '../../domain/networks';
import type { ChainCursor } from '../types';
import { ReorgBeyondFinalityError } from './errors';
import type { BlockSource } from './types';
import type { BlockWindow } from './window';

/**
 * Walks the known window down from `fromHeight` and returns the highest block that is still on
 * the source's chain. The window's lowest entry is the last final block: if even that one was
 * replaced, the reorg is deeper than finality and the follower must stop.
 */
export async function findCommonAncestor(
  network: NetworkCode,
  source: BlockSource,
  window: BlockWindow,
  fromHeight: number,
  tipHeight: number,
): Promise<ChainCursor> {
  for (const known of window.descendingFrom(fromHeight)) {
    const block = await source.block(known.height);
    if (block !== null && block.hash === known.hash) return known;
  }
  const final = window.lowest();
  throw new ReorgBeyondFinalityError(network, {
    finalizedHeight: final?.height ?? -1,
    finalizedHash: final?.hash ?? '',
    tipHeight,
  });
}
