/**
 * TRON payout expiration (docs/chains.md, "TRON: what a payout proves").
 *
 * Window: 5 minutes after the reference block (java-tron allows up to 24 h; tronweb's default is
 * 60 s). Why 5 minutes: a payout must outlive a TronGrid key suspension (~30 s after a burst) and a
 * busy node, so the same signed transaction is re-sent several times before anything is re-signed;
 * and the proof that it can never execute reads every solidified block of the window (~100 blocks,
 * ~100 calls at TRC20_RPS, seconds), which a window of hours would make heavy. A truly lost payout
 * is signed anew about 6 minutes after it was signed (window + ~1 minute of solidification).
 */
export const EXPIRATION_WINDOW_MS = 5 * 60_000;

/** Blocks are produced every 3 s. */
export const BLOCK_MS = 3000;

/**
 * The height of a transaction's reference block from its 2 low bytes (`ref_block_bytes`): the
 * highest height at or below `atOrBelow` that ends in them (java-tron's TAPOS looks up the same).
 * Sound while `atOrBelow` is less than 65,536 blocks (~54 h) above the reference block.
 */
export function refBlockHeight(refBlockBytes: string, atOrBelow: number): number {
  const low = Number.parseInt(refBlockBytes, 16);
  let height = atOrBelow - (atOrBelow & 0xffff) + low;
  if (height > atOrBelow) height -= 0x10000;
  return height;
}
