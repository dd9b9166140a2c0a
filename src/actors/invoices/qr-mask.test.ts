import QRCode from 'qrcode';
import { getEncodedBits } from 'qrcode/lib/core/format-info';
import { applyMask, bestMasked, type ModuleMatrix, penalty, setFormatBits } from './qr-mask';
import { linkSegments } from './qr';
import { seededRandom } from '../../../test/support/seeded-random';

/** `qrcode`'s own penalty functions (lib/core/mask-pattern.js), over anything with size, data and get. */
interface LibMatrix { size: number; data: Uint8Array; get(row: number, col: number): number }
const lib = require('qrcode/lib/core/mask-pattern') as Record<'getPenaltyN1' | 'getPenaltyN2' | 'getPenaltyN3' | 'getPenaltyN4', (m: LibMatrix) => number>;
const libPenalty = (size: number, data: Uint8Array) => {
  const m: LibMatrix = { size, data, get: (row, col) => data[row * size + col]! };
  return lib.getPenaltyN1(m) + lib.getPenaltyN2(m) + lib.getPenaltyN3(m) + lib.getPenaltyN4(m);
};

/** The previous scalar implementation (one module at a time), kept as the reference. */
function scalarPenalty(size: number, d: Uint8Array): number {
  let n1 = 0;
  let n3 = 0;
  for (let a = 0; a < size; a++) {
    let h = d[a * size]!;
    let v = d[a]!;
    let runRow = 1, runCol = 1;
    let bitsRow = h, bitsCol = v;
    for (let b = 1; b < size; b++) {
      const hh = d[a * size + b]!;
      const vv = d[b * size + a]!;
      runRow = (runRow & -(1 - (hh ^ h))) + 1;
      runCol = (runCol & -(1 - (vv ^ v))) + 1;
      n1 += ((4 - runRow) >>> 31) + 2 * (((runRow ^ 5) - 1) >>> 31) + ((4 - runCol) >>> 31) + 2 * (((runCol ^ 5) - 1) >>> 31);
      h = hh;
      v = vv;
      bitsRow = ((bitsRow << 1) & 0x7ff) | hh;
      bitsCol = ((bitsCol << 1) & 0x7ff) | vv;
      if (b >= 10) n3 += +(bitsRow === 0x5d0) + +(bitsRow === 0x05d) + +(bitsCol === 0x5d0) + +(bitsCol === 0x05d);
    }
  }
  let n2 = 0;
  for (let r = 0; r < size - 1; r++) {
    for (let c = 0, i = r * size; c < size - 1; c++, i++) {
      const s = d[i]! + d[i + 1]! + d[i + size]! + d[i + size + 1]!;
      n2 += ((s & 3) - 1) >>> 31;
    }
  }
  let dark = 0;
  for (let i = 0; i < d.length; i++) dark += d[i]!;
  const k = Math.abs(Math.ceil((dark * 100) / d.length / 5) - 10);
  return n1 + n2 * 3 + n3 * 40 + k * 10;
}

/** The previous byte-wise mask selection, kept as the reference. */
function scalarBestMasked(m: ModuleMatrix, formatBits: (pattern: number) => number): { pattern: number; data: Uint8Array } {
  const unmasked = m.data.slice();
  applyMask(0, m, unmasked);
  let best = { pattern: 0, data: m.data, score: Infinity };
  for (let p = 0; p < 8; p++) {
    const d = unmasked.slice();
    setFormatBits(m.size, d, formatBits(p));
    applyMask(p, m, d);
    const score = scalarPenalty(m.size, d);
    if (score < best.score) best = { pattern: p, data: d, score };
  }
  return best;
}

const rng = seededRandom;

/** A copy of `d` at an odd byte offset (not readable as 32-bit words). */
function unaligned(d: Uint8Array): Uint8Array {
  const copy = new Uint8Array(d.length + 1).subarray(1);
  copy.set(d);
  return copy;
}

const FINDER_LIKE = [[1, 0, 1, 1, 1, 0, 1, 0, 0, 0, 0], [0, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1]];

/**
 * A random matrix: independent modules of a given density, or runs of random lengths (N1, N2),
 * with finder-like 1:1:3:1:1 + 4 patterns planted in rows and columns, also across word edges (N3).
 */
function randomMatrix(size: number, rand: () => number, kind: number): Uint8Array {
  const d = new Uint8Array(size * size);
  if (kind < 3) {
    const density = [0.5, 0.25, 0.8][kind]!;
    for (let i = 0; i < d.length; i++) d[i] = rand() < density ? 1 : 0;
  } else {
    let colour = 0;
    for (let i = 0; i < d.length;) {
      const run = 1 + Math.floor(rand() * rand() * 14);
      for (let j = 0; j < run && i < d.length; j++, i++) d[i] = colour;
      colour ^= 1;
    }
    if (kind === 4) for (let r = 0; r < size; r++) for (let c = 0; c < r; c++) d[r * size + c] = d[c * size + r]!; // long runs in columns too
  }
  if (size >= 11) {
    for (let k = Math.floor(rand() * 12); k > 0; k--) {
      const pattern = FINDER_LIKE[k & 1]!;
      const line = Math.floor(rand() * size);
      // Starts near word edges (32, 64, ...) as well as anywhere.
      const edge = 32 * (1 + Math.floor(rand() * Math.max(1, Math.floor(size / 32)))) - 1 - Math.floor(rand() * 11);
      const start = rand() < 0.5 && edge >= 0 && edge + 11 <= size ? edge : Math.floor(rand() * (size - 10));
      for (let t = 0; t < 11; t++) {
        if (rand() < 0.5) d[line * size + start + t] = pattern[t]!;
        else d[(start + t) * size + line] = pattern[t]!;
      }
    }
  }
  return d;
}

// Payment links of each network shape (as in qr.test.ts), a few of each.
const links = [
  ...Array.from({ length: 8 }, (_, i) => `ethereum:0xc2132D05D31c914a87C6611C10748AEb04B58e8F@137/transfer?address=0x${(0x1f00000 * (i + 1)).toString(16).padStart(40, '0')}&uint256=${25_755_000 + i * 7919}`),
  ...Array.from({ length: 8 }, (_, i) => `tron:TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t?amount=${i + 1}.${String(i * 37).padStart(6, '0')}&address=TXYZ${i}abcdefghijkLMNOPQRSTUVWXYZ${i % 7}`),
  ...Array.from({ length: 8 }, (_, i) => `ton://transfer/UQBvW8Z5huBkMJYdnfAEM5JqTNkuWX3diqYENkWsIL0XggGG?jetton=EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs&amount=${1000 + i * 104729}&text=${(i * 2654435761).toString(36)}`),
  ...Array.from({ length: 8 }, (_, i) => `solana:${'9'.repeat(i % 5)}Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p${i}?amount=${i}.5&spl-token=Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p`),
];

const symbolOf = (text: string) => QRCode.create(linkSegments(text), { errorCorrectionLevel: 'M', maskPattern: 0 });
const formatOf = (symbol: QRCode.QRCode) => (p: number) => getEncodedBits(symbol.errorCorrectionLevel, p);

describe('penalty', () => {
  it('equals the scalar formula and qrcode\'s own N1..N4 on random matrices of many sizes', () => {
    const rand = rng(0x5eed);
    const sizes = [1, 2, 5, 11, 21, 25, 31, 32, 33, 45, 57, 63, 64, 65, 96, 97, 101, 177];
    let withN3 = 0;
    for (const size of sizes) {
      const rounds = size > 100 ? 8 : 40;
      for (let r = 0; r < rounds; r++) {
        const d = randomMatrix(size, rand, r % 5);
        const expected = scalarPenalty(size, d);
        expect(penalty(size, d)).toBe(expected);
        expect(penalty(size, d, true)).toBe(expected); // the any-size path on the small sizes too
        if (r % 3 === 0) expect(penalty(size, unaligned(d))).toBe(expected);
        if (size > 1 && r % 4 === 0) expect(libPenalty(size, d)).toBe(expected);
        if (size > 1 && lib.getPenaltyN3({ size, data: d, get: (row, col) => d[row * size + col]! }) > 0) withN3++;
      }
    }
    expect(withN3).toBeGreaterThan(100); // finder-like patterns do occur (and are planted)
  });

  it('scores every component: uniform, striped and finder-like matrices', () => {
    for (const size of [21, 45, 57, 64, 65, 177]) {
      const cases = [
        new Uint8Array(size * size), // all light: long runs, all 2x2 blocks, N4 = 100
        new Uint8Array(size * size).fill(1),
        Uint8Array.from({ length: size * size }, (_, i) => ((i % size) >> 2) & 1), // columns of stripes 4 wide
        Uint8Array.from({ length: size * size }, (_, i) => ((Math.floor(i / size) + (i % size)) & 1)), // checkerboard
        Uint8Array.from({ length: size * size }, (_, i) => FINDER_LIKE[0]![(i % size) % 11]!), // repeated 1011101 0000
        Uint8Array.from({ length: size * size }, (_, i) => FINDER_LIKE[1]![(Math.floor(i / size)) % 11]!),
      ];
      for (const d of cases) {
        expect(penalty(size, d)).toBe(scalarPenalty(size, d));
        expect(penalty(size, d, true)).toBe(scalarPenalty(size, d));
        expect(penalty(size, d)).toBe(libPenalty(size, d));
      }
    }
  });

  it('equals the scalar formula for all 8 masks of real payment links', () => {
    for (const text of links) {
      const symbol = symbolOf(text);
      const m = symbol.modules;
      const unmasked = m.data.slice();
      applyMask(0, m, unmasked);
      const scores = new Set<number>();
      for (let p = 0; p < 8; p++) {
        const d = unmasked.slice();
        setFormatBits(m.size, d, formatOf(symbol)(p));
        applyMask(p, m, d);
        const expected = scalarPenalty(m.size, d);
        expect(penalty(m.size, d)).toBe(expected);
        expect(penalty(m.size, d, true)).toBe(expected);
        scores.add(expected);
      }
      expect(scores.size).toBeGreaterThan(1);
    }
  });
});

describe('bestMasked', () => {
  it('picks the same pattern and modules as the scalar selection and as qrcode itself', () => {
    const rand = rng(42);
    // Payment links, plus random texts from version 1 to 40 (the any-size path, sizes 65..177).
    const texts = [
      ...links,
      ...Array.from({ length: 24 }, (_, i) => {
        const length = [1, 10, 30, 60, 100, 140, 200, 300, 500, 800, 1200, 1800][i % 12]!;
        return Array.from({ length }, () => String.fromCharCode(33 + Math.floor(rand() * 94))).join('');
      }),
    ];
    const patterns = new Set<number>();
    const sizes = new Set<number>();
    for (const text of texts) {
      const symbol = symbolOf(text);
      const ours = bestMasked(symbol.modules, formatOf(symbol));
      const old = scalarBestMasked(symbol.modules, formatOf(symbol));
      const theirs = QRCode.create(linkSegments(text), { errorCorrectionLevel: 'M' });
      expect(ours.pattern).toBe(old.pattern);
      expect(ours.pattern).toBe(theirs.maskPattern);
      expect(Buffer.from(ours.data).equals(Buffer.from(old.data))).toBe(true);
      expect(Buffer.from(ours.data).equals(Buffer.from(theirs.modules.data))).toBe(true);
      patterns.add(ours.pattern);
      sizes.add(symbol.modules.size);
    }
    expect(patterns.size).toBeGreaterThanOrEqual(5);
    expect(Math.max(...sizes)).toBeGreaterThan(64);
    expect(Math.min(...sizes)).toBeLessThanOrEqual(32);
  });

  it('matches the scalar selection on random data in real symbols, ties and all', () => {
    const rand = rng(7);
    let ties = 0;
    for (const text of ['A', 'x'.repeat(40), links[0]!, links[16]!, 'y'.repeat(400)]) {
      const symbol = symbolOf(text);
      const size = symbol.modules.size;
      const rounds = size > 64 ? 10 : 120;
      for (let r = 0; r < rounds; r++) {
        // Random modules (the dark module and format areas too) over the symbol's own reserved areas.
        const data = randomMatrix(size, rand, r % 3);
        const m: ModuleMatrix = { size, reservedBit: symbol.modules.reservedBit, data: r % 4 === 1 ? unaligned(data) : data };
        const ours = bestMasked(m, formatOf(symbol));
        const old = scalarBestMasked(m, formatOf(symbol));
        expect(ours.pattern).toBe(old.pattern);
        expect(Buffer.from(ours.data).equals(Buffer.from(old.data))).toBe(true);
        const unmasked = m.data.slice();
        applyMask(0, m, unmasked);
        const scores = Array.from({ length: 8 }, (_, p) => {
          const d = unmasked.slice();
          setFormatBits(size, d, formatOf(symbol)(p));
          applyMask(p, m, d);
          return scalarPenalty(size, d);
        });
        if (scores.filter((s) => s === Math.min(...scores)).length > 1) ties++;
      }
    }
    expect(ties).toBeGreaterThan(0); // the first of equal scores wins, as in qrcode
  });

  it('leaves the input symbol untouched', () => {
    const symbol = symbolOf(links[0]!);
    const before = symbol.modules.data.slice();
    bestMasked(symbol.modules, formatOf(symbol));
    expect(Buffer.from(symbol.modules.data).equals(Buffer.from(before))).toBe(true);
  });
});
