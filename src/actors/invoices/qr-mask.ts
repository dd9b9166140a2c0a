import { packBits, streamWords } from './qr-bits';
/**
 * QR mask selection, the same rule and result as `qrcode`'s getBestMask (ISO 18004 §7.8.3:
 * try the 8 patterns with their format bits, keep the lowest penalty N1+N2+N3+N4, the first on a
 * tie), bit-parallel. The symbol is packed once into 32-bit words per row and per column (the
 * transpose); a pattern is then a word XOR with an image cached per size and format bits, and the
 * penalty is computed 32 modules at a time with shifts, ANDs and popcounts. Only the winner is
 * unpacked into the Uint8Array that `qrcode`'s renderers read. ~20 us per payment link (v7) against
 * ~215 us for the byte-wise version this replaced (itself ~10x the library's loop). qr-mask.test.ts
 * checks the penalty against the scalar formula and the library's, and the choice against the
 * byte-wise one; qr.test.ts that the symbols are identical to the library's own choice.
 *
 * Line layout: bit j of a line (row or column) is module j, in words of 32 (bit j in word j >> 5).
 * Up to 64 modules (every payment link) a line is two words, lo and hi, with a straight-line path;
 * larger symbols take the general path over W = ceil(size / 32) words. Bits beyond the size are 0.
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

/** Row of format bit `i` in column 8, and column of format bit `i` in row 8 (`qrcode`'s setupFormatInfo). */
const formatRow = (size: number, i: number) => (i < 6 ? i : i < 8 ? i + 1 : size - 15 + i);
const formatCol = (size: number, i: number) => (i < 8 ? size - i - 1 : i < 9 ? 15 - i : 15 - i - 1);

/** The 15 format bits and the dark module, at the positions `qrcode`'s setupFormatInfo uses. */
export function setFormatBits(size: number, data: Uint8Array, bits: number): void {
  for (let i = 0; i < 15; i++) {
    const mod = (bits >> i) & 1;
    data[formatRow(size, i) * size + 8] = mod;
    data[8 * size + formatCol(size, i)] = mod;
  }
  data[(size - 8) * size + 8] = 1;
}

// ---------------------------------------------------------------------------------------------
// Bit-packed lines

/** Words per line: 2 up to 64 modules (the two-word path, hi = 0 up to 32), else ceil(size / 32). */
const wordsPerLine = (size: number) => (size <= 64 ? 2 : (size + 31) >>> 5);

/** Words of the bit stream of a size x size matrix (qr-bits.ts), read by packRows. */
const flatWords = (size: number) => streamWords(size * size);

/**
 * The rows of `d` (row-major bytes, 0 or 1 as `qrcode` writes them) into `rows`, `w` words per
 * row, through `flat`: first d as one bit stream (packBits), then each row cut out of the stream.
 */
function packRows(size: number, w: number, d: Uint8Array, rows: Int32Array, valid: Int32Array, flat: Int32Array): void {
  packBits(d, size * size, flat);
  for (let r = 0; r < size; r++) {
    for (let k = 0; k < w; k++) {
      const at = r * size + 32 * k;
      const q = at >>> 5;
      const s = at & 31;
      // (x << 1) << (31 - s): x << (32 - s), and 0 for s = 0.
      rows[r * w + k] = ((flat[q]! >>> s) | ((flat[q + 1]! << 1) << (31 - s))) & valid[k]!;
    }
  }
}

/** Transposes the 32 x 32 bit block `a` in place (bit c of a[r] <-> bit r of a[c]; Hacker's Delight 7-3). */
function transpose32(a: Int32Array): void {
  for (let j = 16, m = 0x0000ffff; j !== 0; j >>>= 1, m ^= m << j) {
    for (let k = 0; k < 32; k = (k + j + 1) & ~j) {
      const t = ((a[k]! >>> j) ^ a[k + j]!) & m;
      a[k + j]! ^= t;
      a[k]! ^= t << j;
    }
  }
}

/** The columns of packed `rows` (the transpose), 32 x 32 blocks at a time; `block` is 32 words of scratch. */
function transpose(size: number, w: number, rows: Int32Array, cols: Int32Array, block: Int32Array): void {
  for (let C = 0; C < w && 32 * C < size; C++) {
    const colEnd = Math.min(32, size - 32 * C);
    for (let R = 0; R < w; R++) {
      const rowEnd = Math.max(0, Math.min(32, size - 32 * R));
      for (let t = 0; t < 32; t++) block[t] = t < rowEnd ? rows[(32 * R + t) * w + C]! : 0;
      if (rowEnd > 0) transpose32(block);
      for (let t = 0; t < colEnd; t++) cols[(32 * C + t) * w + R] = block[t]!;
    }
  }
}

/** Bit count of a 32-bit word. */
function pc(v: number): number {
  v = (v - ((v >>> 1) & 0x55555555)) | 0;
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}

/** Bit count of two 32-bit words. */
function pc2(lo: number, hi: number): number {
  lo = (lo - ((lo >>> 1) & 0x55555555)) | 0;
  hi = (hi - ((hi >>> 1) & 0x55555555)) | 0;
  let v = (lo & 0x33333333) + ((lo >>> 2) & 0x33333333) + (hi & 0x33333333) + ((hi >>> 2) & 0x33333333); // nibbles <= 8
  v = (v & 0x0f0f0f0f) + ((v >>> 4) & 0x0f0f0f0f); // bytes <= 16
  return Math.imul(v, 0x01010101) >>> 24;
}

/**
 * N1 and N3 over `size` lines of two words (size <= 64), as `n1 + 40 * n3`.
 *
 * With x the dark and y the light modules of a line (y = ~x within the size), and ">> k" the
 * 64-bit shift towards module 0 (bit j of x >> k is module j + k):
 * - N1: f = (x & x>>1 & x>>2 & x>>3 & x>>4) | (same for y) marks the modules that start 5 of a
 *   colour, a run of L >= 5 has L - 4 of them; e = f & ~(f >> 1) marks the last one of each run.
 *   A run scores 3 + (L - 5) = (L - 4) + 2 = popcount(f) + 2 popcount(e). The two modules after
 *   each e are never in f (they would share a colour with the run's last module and the next),
 *   and within the size, so popcount(f | e << 1 | e << 2) counts both at once.
 * - N3: c = 1011101 (dark, light, dark x3, light, dark) starting at the module, l = 4 light ones
 *   (= y4); 1011101 + 0000 starts where c & l >> 7, 0000 + 1011101 where l & c >> 4. The two
 *   never start at the same module (its first module differs), and neither reaches past the size.
 */
function lines2(L: Int32Array, M: Int32Array, size: number, vlo: number, vhi: number): number {
  let n1 = 0;
  let n3 = 0;
  for (let a = 0, end = size * 2; a < end; a += 2) {
    const xl = L[a]! ^ M[a]!;
    const xh = L[a + 1]! ^ M[a + 1]!;
    const yl = ~xl & vlo;
    const yh = ~xh & vhi;
    const x1l = (xl >>> 1) | (xh << 31);
    const x1h = xh >>> 1;
    const y1l = (yl >>> 1) | (yh << 31);
    const y1h = yh >>> 1;
    const x2l = xl & x1l;
    const x2h = xh & x1h;
    const y2l = yl & y1l;
    const y2h = yh & y1h;
    const x2s2l = (x2l >>> 2) | (x2h << 30);
    const x2s2h = x2h >>> 2;
    const y4l = y2l & ((y2l >>> 2) | (y2h << 30));
    const y4h = y2h & (y2h >>> 2);
    const x4sl = (xl >>> 4) | (xh << 28);
    const x4sh = xh >>> 4;
    const fl = (x2l & x2s2l & x4sl) | (y4l & ((yl >>> 4) | (yh << 28)));
    const fh = (x2h & x2s2h & x4sh) | (y4h & (yh >>> 4));
    const el = fl & ~((fl >>> 1) | (fh << 31));
    const eh = fh & ~(fh >>> 1);
    n1 += pc2(fl | (el << 1) | (el << 2), fh | (eh << 1) | (eh << 2) | (el >>> 30) | (el >>> 31));
    const cl = xl & x2s2l & x4sl & ((xl >>> 6) | (xh << 26)) & y1l & ((yl >>> 5) | (yh << 27));
    const ch = xh & x2s2h & x4sh & (xh >>> 6) & y1h & (yh >>> 5);
    const ml = (cl & ((y4l >>> 7) | (y4h << 25))) | (y4l & ((cl >>> 4) | (ch << 28)));
    const mh = (ch & (y4h >>> 7)) | (y4h & (ch >>> 4));
    if ((ml | mh) !== 0) n3 += pc2(ml, mh);
  }
  return n1 + 40 * n3;
}

/** N2 (unweighted) and the dark-module count over `size` rows of two words, as `n2 * 65536 + dark`. */
function blocks2(R: Int32Array, M: Int32Array, size: number, vlo: number, vhi: number): number {
  let n2 = 0;
  let dark = 0;
  let al = R[0]! ^ M[0]!;
  let ah = R[1]! ^ M[1]!;
  for (let a = 2, end = size * 2; a < end; a += 2) {
    const bl = R[a]! ^ M[a]!;
    const bh = R[a + 1]! ^ M[a + 1]!;
    dark += pc2(al, ah);
    // 2x2 dark: t & t >> 1 with t = both rows dark; 2x2 light: the same with u = both light.
    const tl = al & bl;
    const th = ah & bh;
    const ul = ~(al | bl) & vlo;
    const uh = ~(ah | bh) & vhi;
    n2 += pc2((tl & ((tl >>> 1) | (th << 31))) | (ul & ((ul >>> 1) | (uh << 31))), (th & (th >>> 1)) | (uh & (uh >>> 1)));
    al = bl;
    ah = bh;
  }
  dark += pc2(al, ah);
  return n2 * 65536 + dark;
}

/** lines2 over `w` words per line (any size): words from the last down, carrying the next word's values. */
function linesN(L: Int32Array, M: Int32Array, size: number, w: number, valid: Int32Array): number {
  let n1 = 0;
  let n3 = 0;
  for (let a = 0; a < size; a++) {
    let xn = 0, yn = 0, x2n = 0, y2n = 0, y4n = 0, fn = 0, cn = 0;
    for (let k = w - 1; k >= 0; k--) {
      const x = L[a * w + k]! ^ M[a * w + k]!;
      const y = ~x & valid[k]!;
      const x1 = (x >>> 1) | (xn << 31);
      const y1 = (y >>> 1) | (yn << 31);
      const x2 = x & x1;
      const y2 = y & y1;
      const x2s2 = (x2 >>> 2) | (x2n << 30);
      const y4 = y2 & ((y2 >>> 2) | (y2n << 30));
      const x4s = (x >>> 4) | (xn << 28);
      const f = (x2 & x2s2 & x4s) | (y4 & ((y >>> 4) | (yn << 28)));
      const e = f & ~((f >>> 1) | (fn << 31));
      n1 += pc(f) + 2 * pc(e);
      const c = x & x2s2 & x4s & ((x >>> 6) | (xn << 26)) & y1 & ((y >>> 5) | (yn << 27));
      const m = (c & ((y4 >>> 7) | (y4n << 25))) | (y4 & ((c >>> 4) | (cn << 28)));
      if (m !== 0) n3 += pc(m);
      xn = x; yn = y; x2n = x2; y2n = y2; y4n = y4; fn = f; cn = c;
    }
  }
  return n1 + 40 * n3;
}

/** blocks2 over `w` words per row (any size). */
function blocksN(R: Int32Array, M: Int32Array, size: number, w: number, valid: Int32Array): number {
  let n2 = 0;
  let dark = 0;
  for (let a = 0; a < size; a++) {
    let tn = 0, un = 0;
    for (let k = w - 1; k >= 0; k--) {
      const A = R[a * w + k]! ^ M[a * w + k]!;
      dark += pc(A);
      if (a === size - 1) continue;
      const B = R[(a + 1) * w + k]! ^ M[(a + 1) * w + k]!;
      const t = A & B;
      const u = ~(A | B) & valid[k]!;
      n2 += pc((t & ((t >>> 1) | (tn << 31))) | (u & ((u >>> 1) | (un << 31))));
      tn = t; un = u;
    }
  }
  return n2 * 65536 + dark;
}

/** In-range bits of each word of a line. */
function validBits(size: number, w: number): Int32Array {
  const v = new Int32Array(w);
  for (let k = 0; k < w; k++) {
    const bits = Math.max(0, Math.min(32, size - 32 * k));
    v[k] = bits === 32 ? -1 : (1 << bits) - 1;
  }
  return v;
}

/**
 * N1 + 3 N2 + 40 N3 + 10 N4 (`qrcode`'s mask-pattern.js totals) of the symbol whose packed rows
 * are rows ^ rowMask and columns cols ^ colMask.
 */
function packedPenalty(size: number, w: number, valid: Int32Array, rows: Int32Array, rowMask: Int32Array, cols: Int32Array, colMask: Int32Array, general: boolean): number {
  let n13: number;
  let n2dark: number;
  if (w === 2 && !general) {
    n13 = lines2(rows, rowMask, size, valid[0]!, valid[1]!) + lines2(cols, colMask, size, valid[0]!, valid[1]!);
    n2dark = blocks2(rows, rowMask, size, valid[0]!, valid[1]!);
  } else {
    n13 = linesN(rows, rowMask, size, w, valid) + linesN(cols, colMask, size, w, valid);
    n2dark = blocksN(rows, rowMask, size, w, valid);
  }
  const n2 = Math.floor(n2dark / 65536);
  const dark = n2dark % 65536;
  const k = Math.abs(Math.ceil((dark * 100) / (size * size) / 5) - 10);
  return n13 + n2 * 3 + k * 10;
}

/**
 * N1 + N2 + N3 + N4 of `qrcode`'s mask-pattern.js over a row-major module matrix, same totals
 * (`general` forces the any-size path, for tests).
 */
export function penalty(size: number, d: Uint8Array, general = false): number {
  const w = wordsPerLine(size);
  const valid = validBits(size, w);
  const rows = new Int32Array(size * w);
  const cols = new Int32Array(size * w);
  packRows(size, w, d, rows, valid, new Int32Array(flatWords(size)));
  transpose(size, w, rows, cols, new Int32Array(32));
  const zero = new Int32Array(size * w);
  return packedPenalty(size, w, valid, rows, zero, cols, zero, general);
}

// ---------------------------------------------------------------------------------------------
// Mask selection

/** Per size: the mask images packed, where the format modules are, and scratch words. */
interface Packed {
  readonly w: number;
  readonly valid: Int32Array;
  /** Images of the 8 patterns as packed rows and columns. */
  readonly rowImg: Int32Array[];
  readonly colImg: Int32Array[];
  /** Image of pattern 0 XOR image of pattern p, as bytes padded to whole words (for unpacking). */
  readonly swapImg: Int32Array[];
  /** Format module j (bit j >> 1, its (j & 1)th place), then the dark module: byte index, row word and bit, column word and bit. */
  readonly fmtByte: Int32Array;
  readonly fmtRowWord: Int32Array;
  readonly fmtRowBit: Int32Array;
  readonly fmtColWord: Int32Array;
  readonly fmtColBit: Int32Array;
  readonly baseRows: Int32Array;
  readonly baseCols: Int32Array;
  readonly flat: Int32Array;
  readonly block: Int32Array;
  /** formatted(): per format bits and pattern, its image with the format modules, rows and columns. */
  readonly formatted: Map<number, readonly [Int32Array, Int32Array]>;
}

const packedBySize = new Map<number, Packed>();

function packedFor(m: ModuleMatrix): Packed {
  const size = m.size;
  const cached = packedBySize.get(size);
  if (cached) return cached;
  const w = wordsPerLine(size);
  const n = size * w;
  const valid = validBits(size, w);
  const flat = new Int32Array(flatWords(size));
  const block = new Int32Array(32);
  const rowImg: Int32Array[] = [];
  const colImg: Int32Array[] = [];
  const swapImg: Int32Array[] = [];
  for (let q = 0; q < 8; q++) {
    const r = new Int32Array(n);
    const c = new Int32Array(n);
    packRows(size, w, maskBits(m, q), r, valid, flat);
    transpose(size, w, r, c, block);
    rowImg.push(r);
    colImg.push(c);
    const swap = new Uint8Array(Math.ceil((size * size) / 4) * 4);
    for (let i = 0; i < size * size; i++) swap[i] = maskBits(m, 0)[i]! ^ maskBits(m, q)[i]!;
    swapImg.push(new Int32Array(swap.buffer));
  }
  const fmtByte = new Int32Array(31);
  const fmtRowWord = new Int32Array(31);
  const fmtRowBit = new Int32Array(31);
  const fmtColWord = new Int32Array(31);
  const fmtColBit = new Int32Array(31);
  for (let j = 0; j < 31; j++) {
    const i = j >> 1;
    const [row, col] = j === 30 ? [size - 8, 8] : (j & 1) === 0 ? [formatRow(size, i), 8] : [8, formatCol(size, i)];
    fmtByte[j] = row * size + col;
    fmtRowWord[j] = row * w + (col >>> 5);
    fmtRowBit[j] = 1 << (col & 31);
    fmtColWord[j] = col * w + (row >>> 5);
    fmtColBit[j] = 1 << (row & 31);
  }
  const p: Packed = {
    w, valid, rowImg, colImg, swapImg, fmtByte, fmtRowWord, fmtRowBit, fmtColWord, fmtColBit,
    baseRows: new Int32Array(n), baseCols: new Int32Array(n), flat, block, formatted: new Map(),
  };
  packedBySize.set(size, p);
  return p;
}

/**
 * The image of `pattern` as packed rows and columns with the modules of the set format `bits`
 * flipped: XOR-ed onto the unmasked base (format modules 0), the symbol of that pattern. Kept per
 * size and format bits (32 of them: 4 levels x 8 patterns).
 */
function formatted(P: Packed, pattern: number, bits: number): readonly [Int32Array, Int32Array] {
  const key = bits * 8 + pattern;
  let img = P.formatted.get(key);
  if (img) return img;
  const rows = P.rowImg[pattern]!.slice();
  const cols = P.colImg[pattern]!.slice();
  for (let j = 0; j < 30; j++) {
    if (((bits >> (j >> 1)) & 1) === 0) continue;
    rows[P.fmtRowWord[j]!]! ^= P.fmtRowBit[j]!;
    cols[P.fmtColWord[j]!]! ^= P.fmtColBit[j]!;
  }
  img = [rows, cols] as const;
  P.formatted.set(key, img);
  return img;
}

/**
 * Given a symbol built with mask 0, the modules of the best mask (the library's choice), as the
 * library would have built them. `formatBits(p)` is FormatInfo.getEncodedBits(level, p).
 *
 * The same steps as the byte-wise `unmasked = data ^ image 0; per p: setFormatBits, ^= image p`,
 * in words: the format modules are written as 0 and the dark module as 1 into the unmasked base,
 * and per pattern the modules of the set format bits are flipped after XOR-ing the image, which
 * equals writing them before.
 */
export function bestMasked(m: ModuleMatrix, formatBits: (pattern: number) => number): { pattern: number; data: Uint8Array } {
  const size = m.size;
  const P = packedFor(m);
  const { w, baseRows, baseCols, fmtRowWord, fmtRowBit, fmtColWord, fmtColBit } = P;
  const n = size * w;
  packRows(size, w, m.data, baseRows, P.valid, P.flat);
  transpose(size, w, baseRows, baseCols, P.block);
  const r0 = P.rowImg[0]!;
  const c0 = P.colImg[0]!;
  for (let i = 0; i < n; i++) {
    baseRows[i]! ^= r0[i]!;
    baseCols[i]! ^= c0[i]!;
  }
  for (let j = 0; j < 30; j++) {
    baseRows[fmtRowWord[j]!]! &= ~fmtRowBit[j]!;
    baseCols[fmtColWord[j]!]! &= ~fmtColBit[j]!;
  }
  baseRows[fmtRowWord[30]!]! |= fmtRowBit[30]!;
  baseCols[fmtColWord[30]!]! |= fmtColBit[30]!;

  let bestPattern = 0;
  let bestBits = 0;
  let bestScore = Infinity;
  for (let p = 0; p < 8; p++) {
    const bits = formatBits(p);
    const [ri, ci] = formatted(P, p, bits);
    const score = packedPenalty(size, w, P.valid, baseRows, ri, baseCols, ci, false);
    if (score < bestScore) {
      bestScore = score;
      bestPattern = p;
      bestBits = bits;
    }
  }

  // The winner as bytes: data ^ image 0 ^ image p (4 at a time), then the format and dark modules.
  const len = size * size;
  const src = m.data;
  const data = new Uint8Array(len);
  const swap = P.swapImg[bestPattern]!;
  const words = len >>> 2;
  let i = 0;
  if ((src.byteOffset & 3) === 0) {
    const s32 = new Int32Array(src.buffer, src.byteOffset, words);
    const d32 = new Int32Array(data.buffer, 0, words);
    for (let k = 0; k < words; k++) d32[k] = s32[k]! ^ swap[k]!;
    i = words * 4;
  }
  const img = maskBits(m, bestPattern);
  const img0 = maskBits(m, 0);
  for (; i < len; i++) data[i] = src[i]! ^ img0[i]! ^ img[i]!;
  for (let j = 0; j < 31; j++) {
    const at = P.fmtByte[j]!;
    data[at] = (j === 30 ? 1 : (bestBits >> (j >> 1)) & 1) ^ img[at]!;
  }
  return { pattern: bestPattern, data };
}
