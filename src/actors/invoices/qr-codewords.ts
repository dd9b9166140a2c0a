/**
 * The codewords of a QR code at error correction level M, exactly as `qrcode` (1.5) builds them from
 * a list of numeric and byte segments (lib/core/qrcode.js createData and createCodewords, version.js
 * getBestVersionForData, numeric-data.js, byte-data.js, reed-solomon-encoder.js), without its
 * per-call costs: the library rebuilds the generator polynomial for every symbol and divides with
 * polynomials that allocate at every step; here the generators are kept per degree and the
 * remainder is a shift register over words, with the generator's multiples tabulated.
 * qr-encode.test.ts checks the whole SVG against the library's, over many versions and both modes.
 */

/** A segment as `linkSegments` makes them: digits in numeric mode, UTF-8 bytes in byte mode. */
export type LinkSegment = { readonly mode: 'numeric'; readonly data: string } | { readonly mode: 'byte'; readonly data: Uint8Array };

/**
 * The data and error-correction codewords in placement order, and the version that holds them.
 * `codewords` is scratch, overwritten by the next segmentCodewords: read it before (qrSvg's
 * pipeline is synchronous).
 */
export interface Codewords {
  readonly version: number;
  readonly codewords: Uint8Array;
}

// ---------------------------------------------------------------------------------------------
// Per-version constants (ISO 18004 tables 1 and 9; `qrcode`'s utils.js CODEWORDS_COUNT and the M
// column of error-correction-code.js; qr-encode.test.ts compares them with the library's).

/** Total codewords of version v at index v - 1. */
export const TOTAL_CODEWORDS: readonly number[] = [
  26, 44, 70, 100, 134, 172, 196, 242, 292, 346, 404, 466, 532, 581, 655, 733, 815, 901, 991, 1085,
  1156, 1258, 1364, 1474, 1588, 1706, 1828, 1921, 2051, 2185, 2323, 2465, 2611, 2761, 2876, 3034, 3196, 3362, 3532, 3706,
];

/** Error-correction codewords of version v at level M, at index v - 1. */
export const EC_CODEWORDS_M: readonly number[] = [
  10, 16, 26, 36, 48, 64, 72, 88, 110, 130, 150, 176, 198, 216, 240, 280, 308, 338, 364, 416,
  442, 476, 504, 560, 588, 644, 700, 728, 784, 812, 868, 924, 980, 1036, 1064, 1120, 1204, 1260, 1316, 1372,
];

/** Error-correction blocks of version v at level M, at index v - 1. */
export const EC_BLOCKS_M: readonly number[] = [
  1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16,
  17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
];

const dataCodewords = (version: number): number => TOTAL_CODEWORDS[version - 1]! - EC_CODEWORDS_M[version - 1]!;

/** Character-count bits (mode.js getCharCountIndicator): versions 1-9, 10-26, 27-40. */
function countBits(numeric: boolean, version: number): number {
  const band = version < 10 ? 0 : version < 27 ? 1 : 2;
  return numeric ? 10 + 2 * band : band === 0 ? 8 : 16;
}

/** Bits of n digits in numeric mode: 10 per 3, then 4 or 7 for 1 or 2 left (numeric-data.js). */
const numericBits = (n: number): number => 10 * Math.floor(n / 3) + (n % 3 ? (n % 3) * 3 + 1 : 0);

/** Length of a segment in its own units: digits, or bytes. */
const unitsOf = (s: LinkSegment): number => s.data.length;

/**
 * The smallest version that holds the segments, by `qrcode`'s getBestVersionForData, including
 * its two rules: several segments must fit in bits (mode and count headers included); a single
 * one by the per-mode capacity in characters, which for numeric mode is floor(usable / 10 * 3) in
 * floating point and not always the exact bit count, so it is reproduced as written.
 */
export function bestVersion(segments: readonly LinkSegment[]): number {
  if (segments.length === 0) return 1;
  for (let v = 1; v <= 40; v++) {
    const capacity = dataCodewords(v) * 8;
    if (segments.length === 1) {
      const s = segments[0]!;
      const numeric = s.mode === 'numeric';
      const usable = capacity - countBits(numeric, v) - 4;
      const fits = numeric ? Math.floor((usable / 10) * 3) : Math.floor(usable / 8);
      if (unitsOf(s) <= fits) return v;
      continue;
    }
    let bits = 0;
    for (const s of segments) {
      const numeric = s.mode === 'numeric';
      bits += 4 + countBits(numeric, v) + (numeric ? numericBits(unitsOf(s)) : 8 * unitsOf(s));
    }
    if (bits <= capacity) return v;
  }
  throw new Error('The amount of data is too big to be stored in a QR Code');
}

// ---------------------------------------------------------------------------------------------
// Bit stream

/**
 * Scratch for the data codewords and for the result, reused by every call (a fresh typed array of
 * this size lives outside the JavaScript heap, and allocating one costs more than filling it).
 * Sized for version 40.
 */
const dataScratch = new Uint8Array(2334);
const codewordScratch = new Uint8Array(3706);

/**
 * ORs the low `n` bits of `value` (n <= 24) into `buf` from bit `at` on, most significant first
 * (bit 0 of the stream is the top bit of byte 0, as bit-buffer.js); returns the next bit. `buf`
 * is zero where written.
 */
function put(buf: Uint8Array, at: number, value: number, n: number): number {
  while (n > 0) {
    const room = 8 - (at & 7);
    const take = room < n ? room : n;
    n -= take;
    buf[at >>> 3]! |= ((value >>> n) & ((1 << take) - 1)) << (room - take);
    at += take;
  }
  return at;
}

/** put(buf, at, byte, 8) for each byte of `bytes`: the high 8 - s bits of a byte finish the byte at `at`, the low s start the next. */
function putBytes(buf: Uint8Array, at: number, bytes: Uint8Array): number {
  const s = at & 7;
  let p = at >>> 3;
  if (s === 0) {
    buf.set(bytes, p);
  } else {
    for (let i = 0; i < bytes.length; i++, p++) {
      const b = bytes[i]!;
      buf[p]! |= b >>> s;
      buf[p + 1] = (b << (8 - s)) & 0xff;
    }
  }
  return at + 8 * bytes.length;
}

/**
 * The data codewords of `version`: per segment the mode (numeric 0001, byte 0100), the count and
 * the data; then the terminator (4 zero bits if they fit), zero bits to a whole byte, and the pad
 * bytes 0xEC, 0x11 alternately up to the capacity (createData).
 */
function dataStream(segments: readonly LinkSegment[], version: number): Uint8Array {
  const bytes = dataCodewords(version);
  const buf = dataScratch;
  buf.fill(0, 0, bytes);
  let at = 0;
  for (const s of segments) {
    if (s.mode === 'numeric') {
      const d = s.data;
      at = put(buf, at, 0b0001, 4);
      at = put(buf, at, d.length, countBits(true, version));
      let i = 0;
      for (; i + 3 <= d.length; i += 3) {
        at = put(buf, at, (d.charCodeAt(i) - 48) * 100 + (d.charCodeAt(i + 1) - 48) * 10 + (d.charCodeAt(i + 2) - 48), 10);
      }
      if (d.length - i === 2) at = put(buf, at, (d.charCodeAt(i) - 48) * 10 + (d.charCodeAt(i + 1) - 48), 7);
      else if (d.length - i === 1) at = put(buf, at, d.charCodeAt(i) - 48, 4);
    } else {
      const d = s.data;
      at = put(buf, at, 0b0100, 4);
      at = put(buf, at, d.length, countBits(false, version));
      at = putBytes(buf, at, d);
    }
  }
  if (at + 4 <= bytes * 8) at += 4;
  for (let i = (at + 7) >>> 3, k = 0; i < bytes; i++, k++) buf[i] = k % 2 ? 0x11 : 0xec;
  return buf.subarray(0, bytes);
}

// ---------------------------------------------------------------------------------------------
// Reed-Solomon over GF(256), polynomial x^8 + x^4 + x^3 + x^2 + 1 (galois-field.js)

/** Powers of the generator a = 2 (EXP, doubled so EXP[LOG[x] + LOG[y]] needs no mod 255) and their logs. */
const EXP = new Uint8Array(510);
const LOG = new Uint8Array(256);
for (let i = 0, x = 1; i < 255; i++) {
  EXP[i] = x;
  EXP[i + 255] = x;
  LOG[x] = i;
  x <<= 1;
  if (x & 0x100) x ^= 0x11d;
}

const mul = (x: number, y: number): number => (x === 0 || y === 0 ? 0 : EXP[LOG[x]! + LOG[y]!]!);

/**
 * A generator polynomial of degree d, as the encoder uses it: for every byte f, the d low
 * coefficients times f, packed big-endian 4 to a word (coefficient of x^(d-1-j) in byte j, byte j
 * at bits 24 - 8 (j & 3) of word j >> 2; bytes past d are 0). 256 x ceil(d / 4) words.
 */
interface Generator {
  readonly degree: number;
  readonly words: number;
  readonly times: Int32Array;
}

const generators = new Map<number, Generator>();

/**
 * The generator (x + a^0)(x + a^1)...(x + a^(d-1)) (polynomial.js generateECPolynomial), per degree.
 */
function generator(d: number): Generator {
  let gen = generators.get(d);
  if (gen) return gen;
  // Coefficients from x^d down to x^0 (g[0] = 1). Times (x + a^i), in place from the low end:
  // coefficient j takes g[j] + a^i g[j - 1].
  const g = new Uint8Array(d + 1);
  g[0] = 1;
  for (let i = 0; i < d; i++) for (let j = i + 1; j >= 1; j--) g[j] = g[j]! ^ mul(g[j - 1]!, EXP[i]!);
  const words = (d + 3) >>> 2;
  const times = new Int32Array(256 * words);
  for (let f = 1; f < 256; f++) {
    for (let j = 0; j < d; j++) times[f * words + (j >>> 2)]! |= mul(g[j + 1]!, f) << (24 - 8 * (j & 3));
  }
  gen = { degree: d, words, times };
  generators.set(d, gen);
  return gen;
}

/** Remainder scratch: up to 30 coefficients (8 words) and a zero word after them. */
const rem = new Int32Array(16);

/**
 * The remainder of data(x) * x^d divided by the generator (the d error-correction codewords, what
 * Polynomial.mod leaves, left-padded with zeros), written to out[at + j * stride] for j < d.
 * Long division as a shift register, 4 coefficients to a word: per data byte, f = the byte plus
 * the leading coefficient; the remainder shifted by one coefficient, plus f times the generator.
 * The coefficients past d stay 0 (shifted in from the zero word, and 0 in the table).
 */
function writeEc(data: Uint8Array, from: number, to: number, gen: Generator, out: Uint8Array, at: number, stride: number): void {
  const { degree, words, times } = gen;
  rem.fill(0, 0, words + 1);
  for (let i = from; i < to; i++) {
    const f = ((data[i]! ^ (rem[0]! >>> 24)) & 0xff) * words;
    for (let k = 0; k < words; k++) rem[k] = ((rem[k]! << 8) | (rem[k + 1]! >>> 24)) ^ times[f + k]!;
  }
  for (let j = 0; j < degree; j++) out[at + j * stride] = (rem[j >>> 2]! >>> (24 - 8 * (j & 3))) & 0xff;
}

/**
 * The codewords of the segments at level M, interleaved as createCodewords does: the data split
 * into blocks (the last `total % blocks` one byte longer), then byte i of every block in turn,
 * then error-correction byte i of every block in turn.
 */
export function segmentCodewords(segments: readonly LinkSegment[]): Codewords {
  const version = bestVersion(segments);
  const data = dataStream(segments, version);
  const total = TOTAL_CODEWORDS[version - 1]!;
  const blocks = EC_BLOCKS_M[version - 1]!;
  const group2 = total % blocks;
  const group1 = blocks - group2;
  const short = Math.floor(data.length / blocks);
  const ecCount = Math.floor(total / blocks) - short;
  const g = generator(ecCount);
  const out = codewordScratch.subarray(0, total);
  for (let b = 0, offset = 0; b < blocks; b++) {
    const size = b < group1 ? short : short + 1;
    // Byte i < short of block b lands at i * blocks + b; the extra byte of a long block after all of those.
    for (let i = 0; i < short; i++) out[i * blocks + b] = data[offset + i]!;
    if (size > short) out[short * blocks + b - group1] = data[offset + short]!;
    writeEc(data, offset, offset + size, g, out, data.length + b, blocks);
    offset += size;
  }
  return { version, codewords: out };
}
