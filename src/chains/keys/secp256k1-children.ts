import { createHmac } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { addBaseMultiples, type AffinePoint } from './secp256k1-fixed-base';
import type { NativeSecp256k1 } from './native-secp256k1';

/**
 * BIP-32 public child derivation (CKDpub) of a RANGE of consecutive non-hardened indexes of one
 * secp256k1 parent node, byte-compatible with @scure/bip32's `deriveChild`:
 *   I = HMAC-SHA512(chainCode, serP(parent) || ser32(i)), child = parent + IL·G.
 *
 * Why not `HDKey.deriveChild(i)` per index: each call decompresses the parent (a modular square
 * root), normalizes IL·G and the sum to affine (two inversions), compresses the child, and hashes
 * it into a fingerprint nobody reads; the caller then decompresses it again for its keccak id.
 * Here the parent is decompressed once (at construction), the HMAC runs natively, the curve work
 * is a table-driven `P + IL·G` (secp256k1-fixed-base.ts) with one inversion per range, and the
 * children come out uncompressed (what keccak account ids hash).
 *
 * Exceptional cases, exactly as @scure/bip32 1.7 (probability ~2^-127 each, never seen in practice):
 * - IL = 0 or IL >= n: throws Error('Tweak bigger than curve order'), as scure does before its
 *   try/catch (BIP-32 would skip to the next index; scure throws, and so do we: the same index
 *   must give the same result, or the same error, whichever path derived it).
 * - the child is the point at infinity: scure's catch returns `deriveChild(i + 1)`, i.e. the key of
 *   the next index; so do we (for 2^31 - 1 that is out of range: RangeError).
 */

/** The parent node: a 33-byte compressed public key and its 32-byte chain code (an HDKey fits). */
export interface PublicParent {
  readonly publicKey: Uint8Array;
  readonly chainCode: Uint8Array;
}

/** Non-hardened child numbers are 0 <= i < 2^31. */
const HARDENED_OFFSET = 0x80000000;
const N_BYTES = Buffer.from(secp256k1.Point.CURVE().n.toString(16).padStart(64, '0'), 'hex');
const ZERO_32 = Buffer.alloc(32);

/** A parent prepared for range derivation: decompressed (and validated) once, reused for every range. */
export class Secp256k1PublicParent {
  private readonly point: AffinePoint;
  private readonly chainCode: Buffer;
  /** serP(parent) || ser32(i): the HMAC message, its last 4 bytes rewritten per index. */
  private readonly message: Buffer;
  private readonly compressed: Buffer;

  /** With `native`, each child is libsecp256k1's tweak-add (the derivation thread); without, the table-driven JavaScript. */
  constructor(
    parent: PublicParent,
    private readonly native: NativeSecp256k1 | null = null,
  ) {
    if (parent.publicKey.length !== 33) throw new RangeError(`a parent public key is 33 bytes (compressed), got ${parent.publicKey.length}`);
    if (parent.chainCode.length !== 32) throw new RangeError(`a chain code is 32 bytes, got ${parent.chainCode.length}`);
    // fromHex validates the point (on the curve, not infinity), as scure did when the node was built.
    this.point = secp256k1.Point.fromHex(parent.publicKey).toAffine();
    this.chainCode = Buffer.from(parent.chainCode);
    this.message = Buffer.alloc(37);
    this.message.set(parent.publicKey, 0);
    this.compressed = Buffer.from(parent.publicKey);
  }

  /**
   * The 65-byte uncompressed public keys (0x04 || x || y) of children from .. from+count-1, in order.
   * Throws RangeError unless 0 <= from, 0 <= count and from + count <= 2^31 (non-hardened only).
   */
  children(from: number, count: number): Uint8Array[] {
    assertChildRange(from, count);
    const tweaks: Buffer[] = [];
    for (let i = from; i < from + count; i++) {
      this.message.writeUInt32BE(i, 33);
      const tweak = createHmac('sha512', this.chainCode).update(this.message).digest().subarray(0, 32);
      if (tweak.equals(ZERO_32) || tweak.compare(N_BYTES) >= 0) throw new Error('Tweak bigger than curve order');
      tweaks.push(tweak);
    }
    if (this.native) return tweaks.map((tweak, at) => this.nativeChild(tweak) ?? this.jsChildren(from + at, [tweak])[0]!);
    return this.jsChildren(from, tweaks);
  }

  /** parent + IL·G by libsecp256k1; null where it refuses (only the point at infinity, the tweak being in range): JavaScript decides then. */
  private nativeChild(tweak: Uint8Array): Uint8Array | null {
    try {
      return this.native!.tweakAdd(this.compressed, tweak);
    } catch {
      return null;
    }
  }

  private jsChildren(from: number, tweaks: readonly Uint8Array[]): Uint8Array[] {
    return addBaseMultiples(this.point, tweaks).map((child, at) => (child ? uncompressed(child) : this.children(from + at + 1, 1)[0]!));
  }
}

/** One-shot form of Secp256k1PublicParent#children (decompresses the parent on every call). */
export function deriveChildPublicKeys(parent: PublicParent, from: number, count: number): Uint8Array[] {
  return new Secp256k1PublicParent(parent).children(from, count);
}

function assertChildRange(from: number, count: number): void {
  if (!Number.isInteger(from) || !Number.isInteger(count) || from < 0 || count < 0 || from + count > HARDENED_OFFSET) {
    throw new RangeError(`child indexes must be non-hardened: [${from}, ${from} + ${count}) is not within [0, 2^31)`);
  }
}

const FIELD_P = secp256k1.Point.CURVE().p;

/**
 * A derived child must satisfy y² = x³ + 7 (mod p), checked with plain `%` arithmetic, independent
 * of the fast reduction of secp256k1-fixed-base.ts: a slip there would give a point off the curve,
 * and an address handed to a buyer that no key of ours controls would lose the deposit. ~3 µs.
 */
export function assertOnCurve(point: AffinePoint): void {
  const { x, y } = point;
  if ((y * y - (x * x * x + 7n)) % FIELD_P !== 0n) throw new Error('derived secp256k1 child is not on the curve');
}

function uncompressed(point: AffinePoint): Uint8Array {
  assertOnCurve(point);
  const out = new Uint8Array(65);
  out[0] = 0x04;
  out.set(Buffer.from(point.x.toString(16).padStart(64, '0'), 'hex'), 1);
  out.set(Buffer.from(point.y.toString(16).padStart(64, '0'), 'hex'), 33);
  return out;
}
