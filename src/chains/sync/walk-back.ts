import type { NetworkCode } from '../../domain/networks';
import type { BlockRef } from '../types';
import { ReorgBeyondFinalityError } from './errors';
import type { BlockSource } from './types';
import type { BlockWindow } from './window';

/**
 * Walks the known window down from `fromHeight` and returns the highest block that is still on
 * the source's chain. The window's lowest entry is the last final block: if even that one was
 * replaced, the reorg is deeper than finality and the follower must stop. Where the window is
 * sparse (after a restart: the saved tip and the final anchor only) and the source keeps replaced
 * blocks (BlockSource.blockByHash), the replaced block's parents are followed to the exact ancestor.
 */
export async function findCommonAncestor(network: NetworkCode, source: BlockSource, window: BlockWindow, fromHeight: number, tipHeight: number): Promise<BlockRef> {
  const known = window.descendingFrom(fromHeight);
  for (let i = 0; i < known.length; i++) {
    const entry = known[i]!;
    const block = await source.block(entry.height);
    if (block !== null && block.hash === entry.hash) return entry;
    // Never below the next known block (it is checked next); the lowest one is final: no following.
    const found = await followReplaced(source, entry.hash, known[i + 1]?.height ?? entry.height);
    if (found !== null) return found;
  }
  const final = window.lowest();
  throw new ReorgBeyondFinalityError(network, {
    finalizedHeight: final?.height ?? -1,
    finalizedHash: final?.hash ?? '',
    tipHeight,
  });
}

/** The replaced block's ancestors above height `floor`, highest first, until one is on the chain. */
async function followReplaced(source: BlockSource, hash: string, floor: number): Promise<BlockRef | null> {
  if (!source.blockByHash) return null;
  let replaced = await source.blockByHash(hash);
  while (replaced !== null && replaced.height - 1 > floor) {
    const height = replaced.height - 1;
    const canonical = await source.block(height);
    if (canonical !== null && canonical.hash === replaced.parentHash) return { height, hash: canonical.hash };
    replaced = await source.blockByHash(replaced.parentHash);
  }
  return null;
}
