import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1';
import { addBaseMultiples, type AffinePoint } from './secp256k1-fixed-base';

const Point = secp256k1.Point;
const N = Point.CURVE().n;

const scalar = (k: bigint): Uint8Array => Buffer.from(k.toString(16).padStart(64, '0'), 'hex');
const affine = (k: bigint): AffinePoint => Point.BASE.multiply(k).toAffine();

/** The reference: noble's complete projective arithmetic, one inversion per point. */
function expected(point: AffinePoint, k: Uint8Array): AffinePoint | null {
  const kk = BigInt('0x' + Buffer.from(k).toString('hex')) % N;
  const sum = kk === 0n ? Point.fromAffine(point) : Point.fromAffine(point).add(Point.BASE.multiply(kk));
  return sum.equals(Point.ZERO) ? null : sum.toAffine();
}

describe('addBaseMultiples (point + k·G, batched)', () => {
  it('matches noble for random scalars, in one batch and one at a time', () => {
    const point = affine(0xdeadbeefn);
    const scalars = Array.from({ length: 100 }, () => randomBytes(32));
    const batch = addBaseMultiples(point, scalars);
    scalars.forEach((k, i) => {
      expect(batch[i]).toEqual(expected(point, k));
      expect(addBaseMultiples(point, [k])).toEqual([expected(point, k)]);
    });
  });

  it('matches noble on window edge cases: digits 0, 128, -127, carries through every window, k >= n', () => {
    const point = affine(7n);
    const scalars = [
      Buffer.alloc(32, 0x00), // all windows zero: the point itself
      Buffer.alloc(32, 0xff), // 2^256 - 1 (>= n): a carry through every window
      Buffer.alloc(32, 0x80), // digit 128 everywhere (no carry)
      Buffer.alloc(32, 0x81), // digit -127 with a carry everywhere
      scalar(1n),
      scalar(N - 1n),
      scalar(1n << 255n),
      scalar(0x0100n), // a zero low window then a one
    ];
    expect(addBaseMultiples(point, scalars)).toEqual(scalars.map((k) => expected(point, k)));
  });

  it('is exact where the incomplete addition formula would not be: doubling, infinity, adding to infinity', () => {
    const cases: [AffinePoint, bigint][] = [
      [affine(1n), 1n], // G + G: the first window adds G to G (doubling)
      [affine(N - 1n), 1n], // -G + G: infinity, no later window adds anything
      [affine(N - 1n), 1n + 256n], // -G + G = infinity midway, then + 256·G
      [affine(2n), N - 2n], // 2G + (n-2)·G: infinity at the end
      [affine(256n), 256n], // 256G + 256G: doubling in a later window
    ];
    for (const [point, k] of cases) expect(addBaseMultiples(point, [scalar(k)])).toEqual([expected(point, scalar(k))]);
    expect(addBaseMultiples(affine(N - 1n), [scalar(1n)])).toEqual([null]);
    expect(addBaseMultiples(affine(256n), [scalar(256n)])).toEqual([affine(512n)]);
  });

  it('keeps results aligned with their scalars when some sums are infinity (the batch inversion skips them)', () => {
    const point = affine(5n);
    const scalars = [scalar(3n), scalar(N - 5n), randomBytes(32), scalar(N - 5n), scalar(9n)];
    const got = addBaseMultiples(point, scalars);
    expect(got[1]).toBeNull();
    expect(got[3]).toBeNull();
    expect(got).toEqual(scalars.map((k) => expected(point, k)));
    expect(got[0]).toEqual(affine(8n));
    expect(got[4]).toEqual(affine(14n));
  });

  it('refuses scalars that are not 32 bytes; an empty batch is empty', () => {
    expect(addBaseMultiples(affine(1n), [])).toEqual([]);
    expect(() => addBaseMultiples(affine(1n), [new Uint8Array(31)])).toThrow(RangeError);
  });
});
