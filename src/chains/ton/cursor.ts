import type { ChainCursor } from '../types';

/**
 * TON's watch position: the masterchain block our jetton wallet's state was read at, and the
 * (lt, hash) of that wallet's last transaction seen then (lt 0, no hash: none yet).
 *
 * The current contract's cursor is {height, hash}: height carries the masterchain seqno (so the
 * watcher's head − height + 1 counts masterchain blocks, TON's confirmations) and hash carries
 * "<lt>:<tx hash hex>". Under a per-family JSON cursor this becomes its own object.
 */
export interface TonCursor {
  readonly seqno: number;
  readonly lt: bigint;
  readonly hash: Buffer | null;
}

export function encodeCursor(c: TonCursor): ChainCursor {
  return { height: c.seqno, hash: `${c.lt}:${c.hash?.toString('hex') ?? ''}` };
}

/** Null for a cursor TON did not write (e.g. a devnet one): the watch then starts at the head. */
export function decodeCursor(c: ChainCursor | null): TonCursor | null {
  if (c === null) return null;
  const m = /^(\d+):([0-9a-f]{64})?$/.exec(c.hash);
  if (!m) return null;
  return { seqno: c.height, lt: BigInt(m[1]!), hash: m[2] ? Buffer.from(m[2], 'hex') : null };
}

export function sameTx(a: { lt: bigint; hash: Buffer | null } | null, b: { lt: bigint; hash: Buffer } | null): boolean {
  if (a === null || a.hash === null || a.lt === 0n) return b === null;
  return b !== null && a.lt === b.lt && a.hash.equals(b.hash);
}

/** A transaction hash as @ton/core's Transaction holds its predecessor's (a 256-bit bigint). */
export function hashOf(hash: bigint): Buffer {
  return Buffer.from(hash.toString(16).padStart(64, '0'), 'hex');
}
