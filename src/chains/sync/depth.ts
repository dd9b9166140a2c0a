import type { Confirmations } from '../types';

/**
 * The block families' count (EVM, TRON, devnet): a transfer in block `height` has
 * tip - height + 1 confirmations once `tip` is processed (0 above it), and is final at `finalityDepth`.
 */
export function blockDepth(height: number, tip: number, finalityDepth: number): Confirmations {
  const confirmations = Math.max(0, tip - height + 1);
  return { confirmations, final: confirmations >= finalityDepth };
}
