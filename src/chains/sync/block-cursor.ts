import { z } from 'zod';
import { InvalidCursorError } from '../errors';
import type { BlockRef, ChainCursor } from '../types';

/** The cursor of the block families (EVM, TRON, devnet): the last processed block's height and hash. */
const BLOCK_CURSOR = z.object({ height: z.number().int().nonnegative(), hash: z.string().min(1) });

/** A block as the block families' cursor ({ height, hash }, stored as JSON). */
export function blockCursor(block: BlockRef): ChainCursor {
  return { height: block.height, hash: block.hash };
}

/** Reads a block family's cursor; throws InvalidCursorError on any other shape. */
export function readBlockCursor(network: string, cursor: ChainCursor): BlockRef {
  const parsed = BLOCK_CURSOR.safeParse(cursor);
  if (!parsed.success) throw new InvalidCursorError(network, cursor);
  return parsed.data;
}
