/**
 * QR mask selection, the same rule and result as `qrcode`'s getBestMask (ISO 18004 §7.8.3:
 * try the 8 patterns with their format bits, keep the lowest penalty N1+N2+N3+N4, the first on a
 * tie), over typed arrays. The library's loop costs ~90% of rendering a code (8 patterns × 4
 * penalty passes through per-module method calls); this one ~10x less. qr.test.ts checks that the
 * symbols are identical to the library's own choice.
 */

/** The module matrix as `qrcode` keeps it: row-major, 1 = dark; reserved = function patterns. */
export interface ModuleMatrix {
  readonly size: number;
  readonly data: Uint8Array;
  readonly reservedBit: Uint8Array;
}

function maskAt(pattern: number, i: number, j: number): number {
  switch (pattern) {
    case 0: return (i + j) % 2 === 0 ? 1 : 0;
    case 1: return i % 2 === 0 ? 1 : 0;
    case 2: return j % 3 === 0 ? 1 : 0;
    case 3: return (i + j) % 3 === 0 ? 1 : 0;
    case 4: return (Math.floor(i / 2) + Math.floor(j / 3)) % 2 === 0 ? 1 : 0;
    case 5: return ((i * j) % 2) + ((i * j) % 3) === 0 ? 1 : 0;
    case 6: return (((i * j) % 2) + ((i * j) % 3)) % 2 === 0 ? 1 : 0;
    default: return (((i * j) % 3) + ((i + j) % 2)) % 2 === 0 ? 1 : 0;
  }
}

/** XOR `pattern` onto the non-reserved modules of `data` (in place). */
export function applyMask(pattern: number, m: ModuleMatrix, data: Uint8Array): void {
  const mask = maskBits(m, pattern);
  for (let i = 0; i < data.length; i++) data[i]! ^= mask[i]!;
}

/**
 * The XOR image of a pattern over the non-reserved modules. The reserved modules (function
 * patterns, format and version areas) depend only on the version, so the images are kept per size.
 */
const images = new Map<number, Uint8Array[]>();

function maskBits(m: ModuleMatrix, pattern: number): Uint8Array {
  let perPattern = images.get(m.size);
  if (!perPattern) {
    perPattern = [];
    for (let p = 0; p < 8; p++) {
      const img = new Uint8Array(m.size * m.size);
      for (let row = 0; row < m.size; row++) {
        for (let col = 0, i = row * m.size; col < m.size; col++, i++) img[i] = m.reservedBit[i] ? 0 : maskAt(p, row, col);
      }
      perPattern.push(img);
    }
    images.set(m.size, perPattern);
  }
  return perPattern[pattern]!;
}

/** The 15 format bits and the dark module, at the positions `qrcode`'s setupFormatInfo uses. */
export function setFormatBits(size: number, data: Uint8Array, bits: number): void {
  for (let i = 0; i < 15; i++) {
    const mod = (bits >> i) & 1;
    const vRow = i < 6 ? i : i < 8 ? i + 1 : size - 15 + i;
    data[vRow * size + 8] = mod;
    const hCol = i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1;
    data[8 * size + hCol] = mod;
  }
  data[(size - 8) * size + 8] = 1;
}

/**
 * N1 + N2 + N3 + N4 of `qrcode`'s mask-pattern.js, same totals. Written without data-dependent
 * branches (the bits are random, so branches mispredict half the time): a run of length L >= 5
 * scores 3 + (L - 5) = (L - 4) + 2, i.e. 1 for each of its modules from the 5th on, plus 2 when it
 * reaches the 5th.
 */
export function penalty(size: number, d: Uint8Array): number {
  let n1 = 0;
  let n3 = 0;
  for (let a = 0; a < size; a++) {
    let h = d[a * size]!;
    let v = d[a]!;
    let runRow = 1, runCol = 1;
    let bitsRow = h, bitsCol = v;
    for (let b = 1; b < size; b++) {
      const hh = d[a * size + b]!; // along row a
      const vv = d[b * size + a]!; // along column a
      // same ? run + 1 : 1
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
      n2 += ((s & 3) - 1) >>> 31; // s is 0 or 4
    }
  }
  let dark = 0;
  for (let i = 0; i < d.length; i++) dark += d[i]!;
  const k = Math.abs(Math.ceil((dark * 100) / d.length / 5) - 10);
  return n1 + n2 * 3 + n3 * 40 + k * 10;
}

/**
 * Given a symbol built with mask 0, the modules of the best mask (the library's choice), as the
 * library would have built them. `formatBits(p)` is FormatInfo.getEncodedBits(level, p).
 */
export function bestMasked(m: ModuleMatrix, formatBits: (pattern: number) => number): { pattern: number; data: Uint8Array } {
  const unmasked = m.data.slice();
  applyMask(0, m, unmasked);
  let best = { pattern: 0, data: m.data, score: Infinity };
  for (let p = 0; p < 8; p++) {
    const d = unmasked.slice();
    setFormatBits(m.size, d, formatBits(p));
    applyMask(p, m, d);
    const score = penalty(m.size, d);
    if (score < best.score) best = { pattern: p, data: d, score };
  }
  return best;
}
