import { secp256k1 } from '@noble/curves/secp256k1';

/**
 * secp256k1 `P + k·G` for many scalars k at once: the elliptic-curve half of BIP-32 public child
 * derivation (secp256k1-children.ts).
 *
 * Why not `Point.BASE.multiply(k).add(P)` per k: noble's constant-time multiply walks the GLV
 * halves of k through all 33 windows of its base table with a fake addition for every real one
 * (~66 complete projective additions), then normalizes to affine (a field inversion) — ~215 µs of
 * the ~400 µs an address cost. Here k is split into 33 signed 8-bit windows, each adds ONE point
 * of a precomputed affine table (k_w·2^(8w)·G) to a Jacobian accumulator started at P with a mixed
 * addition (8M+3S), and all the sums of a batch go back to affine with one inversion (Montgomery's
 * trick). The table is built with noble's own (complete) point arithmetic, once, on first use.
 *
 * Invariants:
 * - Exactly 33 additions per scalar whatever its value (a zero window adds into a throwaway
 *   accumulator), like noble's `multiply`, so the work done does not depend on the secret-ish
 *   tweak. BigInt arithmetic is not constant time in any JS library; this is no weaker than noble.
 * - The mixed addition handles every exceptional case (accumulator at infinity, equal points ->
 *   doubling, opposite points -> infinity), so the result is exact for any input, not only with
 *   overwhelming probability.
 */

export interface AffinePoint {
  readonly x: bigint;
  readonly y: bigint;
}

const Point = secp256k1.Point;
const { p: FIELD_P, Gx, Gy } = Point.CURVE();

/** p = 2^256 - FOLD: a product's high half folds back as high·FOLD (p is a pseudo-Mersenne prime). */
const FOLD = 0x1000003d1n;
const LOW_256 = (1n << 256n) - 1n;
if (FIELD_P !== (1n << 256n) - FOLD) throw new Error('secp256k1 field prime is not 2^256 - 0x1000003d1');

/** a·b mod p for a, b in [0, p): two folds leave < 2^256 + 2^67 < 2p, so one subtraction finishes. ~30% faster than `%`. */
function mul(a: bigint, b: bigint): bigint {
  let t = a * b;
  t = (t & LOW_256) + (t >> 256n) * FOLD;
  t = (t & LOW_256) + (t >> 256n) * FOLD;
  return t >= FIELD_P ? t - FIELD_P : t;
}

function add(a: bigint, b: bigint): bigint {
  const t = a + b;
  return t >= FIELD_P ? t - FIELD_P : t;
}

function sub(a: bigint, b: bigint): bigint {
  const t = a - b;
  return t < 0n ? t + FIELD_P : t;
}

/** Jacobian coordinates: x = X/Z², y = Y/Z³. Z = 0 is the point at infinity. Mutated in place. */
interface Jacobian {
  X: bigint;
  Y: bigint;
  Z: bigint;
}

/** a := 2a (dbl-2009-l, curve a = 0). secp256k1 has no point of order 2, so y = 0 never occurs on it. */
function doubleInto(a: Jacobian): void {
  if (a.Z === 0n) return;
  const xx = mul(a.X, a.X); // A
  const yy = mul(a.Y, a.Y); // B
  const yyyy = mul(yy, yy); // C
  const s = add(a.X, yy);
  const half = sub(sub(mul(s, s), xx), yyyy);
  const d = add(half, half); // D = 2((X+B)² - A - C)
  const e = add(add(xx, xx), xx); // E = 3A
  const x3 = sub(mul(e, e), add(d, d)); // F - 2D
  const c4 = add(add(yyyy, yyyy), add(yyyy, yyyy));
  const z3 = mul(add(a.Y, a.Y), a.Z);
  a.Y = sub(mul(e, sub(d, x3)), add(c4, c4)); // E(D - X3) - 8C
  a.X = x3;
  a.Z = z3;
}

/** a := a + (x2, y2) for an affine point (madd: 8M + 3S), exact in every case. */
function addAffineInto(a: Jacobian, x2: bigint, y2: bigint): void {
  if (a.Z === 0n) {
    a.X = x2;
    a.Y = y2;
    a.Z = 1n;
    return;
  }
  const z1z1 = mul(a.Z, a.Z);
  const h = sub(mul(x2, z1z1), a.X);
  const r = sub(mul(y2, mul(a.Z, z1z1)), a.Y);
  if (h === 0n) {
    // Same x: the same point (double it) or its negation (the sum is infinity).
    if (r === 0n) doubleInto(a);
    else a.Z = 0n;
    return;
  }
  const hh = mul(h, h);
  const hhh = mul(h, hh);
  const v = mul(a.X, hh);
  const x3 = sub(sub(mul(r, r), hhh), add(v, v));
  a.Y = sub(mul(r, sub(v, x3)), mul(a.Y, hhh));
  a.X = x3;
  a.Z = mul(a.Z, h);
}

/** Signed 8-bit windows: digits in [-127, 128], 33 windows cover a 256-bit scalar plus the last carry. */
const WINDOW_BITS = 8;
const WINDOWS = 33;
const DIGITS = 1 << (WINDOW_BITS - 1); // 128 table points per window: 1..128 times its base

/**
 * table.x[w·128 + d-1], table.y[...] = d·2^(8w)·G in affine coordinates (~0.5 MB). No entry is
 * infinity: the group order n is a prime larger than d and 2, so it never divides d·2^(8w).
 */
let table: { x: bigint[]; y: bigint[] } | undefined;

function baseTable(): { x: bigint[]; y: bigint[] } {
  if (table) return table;
  // ~4,200 complete additions and one batch inversion: ~40 ms once per process (first derivation).
  const points: (typeof Point.BASE)[] = [];
  let base = Point.BASE;
  for (let w = 0; w < WINDOWS; w++) {
    let multiple = base;
    points.push(multiple);
    for (let d = 2; d <= DIGITS; d++) {
      multiple = multiple.add(base);
      points.push(multiple);
    }
    base = multiple.double(); // 256·(2^(8w)·G)
  }
  const inverses = Point.Fp.invertBatch(points.map((pt) => pt.Z));
  const x: bigint[] = [];
  const y: bigint[] = [];
  points.forEach((pt, i) => {
    const affine = pt.toAffine(inverses[i]);
    x.push(affine.x);
    y.push(affine.y);
  });
  if (x[0] !== Gx || y[0] !== Gy) throw new Error('secp256k1 base table does not start at G');
  table = { x, y };
  return table;
}

/**
 * `point + k·G` for each 32-byte big-endian scalar k, in affine coordinates; null where the sum is
 * the point at infinity. `point` must be on the curve (e.g. from noble's `Point.fromHex`, which
 * validates). Any 256-bit k works (reduced mod n by the group law); BIP-32 callers reject k = 0 and
 * k >= n before. One field inversion for the whole batch.
 */
export function addBaseMultiples(point: AffinePoint, scalars: readonly Uint8Array[]): (AffinePoint | null)[] {
  const { x: tx, y: ty } = baseTable();
  const sums: Jacobian[] = [];
  const discard: Jacobian = { X: 0n, Y: 0n, Z: 0n };
  for (const k of scalars) {
    if (k.length !== 32) throw new RangeError(`a scalar is 32 bytes, got ${k.length}`);
    const acc: Jacobian = { X: point.x, Y: point.y, Z: 1n };
    let carry = 0;
    for (let w = 0; w < WINDOWS; w++) {
      let digit = (w < 32 ? k[31 - w]! : 0) + carry;
      carry = digit > DIGITS ? 1 : 0;
      if (carry) digit -= 1 << WINDOW_BITS;
      if (digit === 0) {
        // Same work for a zero window: keeps the number of additions independent of k.
        addAffineInto(discard, tx[w * DIGITS]!, ty[w * DIGITS]!);
        continue;
      }
      const at = w * DIGITS + Math.abs(digit) - 1;
      addAffineInto(acc, tx[at]!, digit > 0 ? ty[at]! : FIELD_P - ty[at]!);
    }
    sums.push(acc);
  }
  return toAffineBatch(sums);
}

/** Jacobian -> affine with one inversion (Montgomery's trick, noble's `invertBatch`, which skips zeros). */
function toAffineBatch(points: readonly Jacobian[]): (AffinePoint | null)[] {
  const finite = points.filter((pt) => pt.Z !== 0n);
  const inverses = Point.Fp.invertBatch(finite.map((pt) => pt.Z));
  let next = 0;
  return points.map((pt) => {
    if (pt.Z === 0n) return null;
    const zInv = inverses[next++]!;
    const zInv2 = mul(zInv, zInv);
    return { x: mul(pt.X, zInv2), y: mul(pt.Y, mul(zInv2, zInv)) };
  });
}
