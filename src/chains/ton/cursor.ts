import { z } from 'zod';
import { InvalidCursorError } from '../errors';
import type { ChainCursor, Confirmations } from '../types';

/**
 * TON's watch position: the masterchain block our jetton wallet's state was read at (`seqno`), and
 * the (lt, hash) of that wallet's last transaction seen then (lt 0, no hash: none yet). Stored by
 * the daemon as the JSON `{ seqno, lt, hash }` (lt a decimal string: it does not fit a JS number's
 * exact range; hash 64 hex digits or ''), read only here.
 */
export interface TonCursor {
  readonly seqno: number;
  readonly lt: bigint;
  readonly hash: Buffer | null;
}

const CURSOR = z.object({
  seqno: z.number().int().nonnegative(),
  lt: z.string().regex(/^\d+$/),
  hash: z.string().regex(/^([0-9a-f]{64})?$/),
});

export function encodeCursor(c: TonCursor): ChainCursor {
  return { seqno: c.seqno, lt: c.lt.toString(), hash: c.hash?.toString('hex') ?? '' };
}

/** A saved cursor -> TonCursor; InvalidCursorError for one TON did not write (e.g. a devnet { height, hash }). */
export function decodeCursor(network: string, c: ChainCursor): TonCursor {
  const parsed = CURSOR.safeParse(c);
  if (!parsed.success) throw new InvalidCursorError(network, c);
  const { seqno, lt, hash } = parsed.data;
  return { seqno, lt: BigInt(lt), hash: hash === '' ? null : Buffer.from(hash, 'hex') };
}

/** A transaction's (or a cursor's) place as one string, `<lt>:<hash hex>`: a transfer's blockHash, a block's hash. */
export function placeOf(c: { lt: bigint; hash: Buffer | null }): string {
  return `${c.lt}:${c.hash?.toString('hex') ?? ''}`;
}

/**
 * TON's count: masterchain blocks from the one whose state showed the transfer (`height`) to the
 * cursor's, that one included. Final from the first: a masterchain block is never replaced.
 */
export function tonConfirmations(height: number, cursorSeqno: number): Confirmations {
  const confirmations = Math.max(0, cursorSeqno - height + 1);
  return { confirmations, final: confirmations >= 1 };
}

export function sameTx(a: { lt: bigint; hash: Buffer | null } | null, b: { lt: bigint; hash: Buffer } | null): boolean {
  if (a === null || a.hash === null || a.lt === 0n) return b === null;
  return b !== null && a.lt === b.lt && a.hash.equals(b.hash);
}

/** A transaction hash as @ton/core's Transaction holds its predecessor's (a 256-bit bigint). */
export function hashOf(hash: bigint): Buffer {
  return Buffer.from(hash.toString(16).padStart(64, '0'), 'hex');
}
