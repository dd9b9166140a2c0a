import type { Confirmations } from '../types';

/**
 * The block families' count (EVM, TRON, devnet): a transfer in block `height` has
 * tip - height + 1 confirmations once `tip` is processed (0 above it), and is final at `finalityDepth`.
 * `finalCap`: the highest height the chain itself holds irreversible (BlockSource.finalHeight, TRON's
 * solidified head); above it a transfer is not final and its count stops at finalityDepth - 1, so
 * whoever reads only the count (an invoice is paid at the required confirmations) waits too.
 */
export function blockDepth(height: number, tip: number, finalityDepth: number, finalCap = Number.POSITIVE_INFINITY): Confirmations {
  const confirmations = Math.max(0, tip - height + 1);
  if (height > finalCap) return { confirmations: Math.min(confirmations, finalityDepth - 1), final: false };
  return { confirmations, final: confirmations >= finalityDepth };
}
