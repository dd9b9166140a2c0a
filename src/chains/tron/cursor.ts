import { z } from 'zod';
import { InvalidCursorError } from '../errors';
import type { BlockRef, ChainCursor } from '../types';

/**
 * TRON's watcher cursor: the last processed block's height and blockID (java-tron's block hash:
 * the 8-byte height, then 24 bytes of the header hash), stored as JSON by the daemon, read only here.
 */
const TRON_CURSOR = z.object({ height: z.number().int().nonnegative(), blockId: z.string().regex(/^[0-9a-fA-F]{64}$/) });

/** A block as TRON's cursor ({ height, blockId }). */
export function tronCursor(block: BlockRef): ChainCursor {
  return { height: block.height, blockId: block.hash };
}

/** Reads a TRON cursor into the sync engine's block; throws InvalidCursorError on any other shape. */
export function readTronCursor(network: string, cursor: ChainCursor): BlockRef {
  const parsed = TRON_CURSOR.safeParse(cursor);
  if (!parsed.success) throw new InvalidCursorError(network, cursor);
  return { height: parsed.data.height, hash: parsed.data.blockId };
}
