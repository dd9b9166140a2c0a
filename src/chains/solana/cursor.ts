import { z } from 'zod';
import { InvalidCursorError } from '../errors';
import type { ChainCursor, Confirmations, TransferPlace } from '../types';

/**
 * SOLANA's cursor: the last fully processed finalized slot and its blockhash (the next block must
 * name both as its parent). Stored as JSON by the watcher, read only here.
 */
export interface SolanaCursor {
  readonly slot: number;
  readonly blockhash: string;
}

const CURSOR = z.object({ slot: z.number().int().nonnegative(), blockhash: z.string().min(32) }).strict();

export function solanaCursor(slot: number, blockhash: string): ChainCursor {
  return { slot, blockhash };
}

/** Reads a SOLANA cursor; any other shape (a devnet or block family's { height, hash }) throws InvalidCursorError. */
export function readSolanaCursor(network: string, cursor: ChainCursor): SolanaCursor {
  const parsed = CURSOR.safeParse(cursor);
  if (!parsed.success) throw new InvalidCursorError(network, cursor);
  return parsed.data;
}

/**
 * Only finalized slots are read, so a transfer the stream delivered is final at once. Its count is
 * the finalized slots from its own up to the cursor (skipped slots included, ~0.4 s each): 1 when
 * its slot is the cursor's. SOLANA_CONFIRMATIONS is therefore a margin beyond finality, not finality
 * itself (docs/chains.md, SOLANA). A place above the cursor is not reached yet: 0, not final.
 */
export function finalizedSlotDepth(place: TransferPlace, cursor: SolanaCursor): Confirmations {
  const confirmations = Math.max(0, cursor.slot - place.blockHeight + 1);
  return { confirmations, final: confirmations > 0 };
}
