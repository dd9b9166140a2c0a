import QRCode from 'qrcode';
import SvgRenderer from 'qrcode/lib/renderer/svg-tag';
import { getEncodedBits } from 'qrcode/lib/core/format-info';
import { bestMasked } from './qr-mask';
import { linkSegments, qrSvg, qrSvgCached, renderQrSvg } from './qr';
import { bestVersion, EC_BLOCKS_M, EC_CODEWORDS_M, type LinkSegment, TOTAL_CODEWORDS } from './qr-codewords';
import { seededRandom } from '../../../test/support/seeded-random';

/**
 * qrSvg's encoder (qr-codewords.ts, qr-matrix.ts, qr-svg.ts) against the `qrcode` package: the
 * whole SVG string must be the one the package's own pipeline gives, the pipeline qrSvg ran before
 * (kept here as the reference): QRCode.create of the link's segments with mask 0, the mask chosen
 * by qr-mask.ts's bestMasked, SvgRenderer.render with margin 2.
 */

/** linkSegments as it was written before (a regex and a Buffer per segment): the segmentation the reference encodes. */
function referenceSegments(text: string): LinkSegment[] {
  const out: LinkSegment[] = [];
  let at = 0;
  for (const m of text.matchAll(/\d+/g)) {
    const edge = m.index === 0 || m.index + m[0].length === text.length;
    if (m[0].length < (edge ? 4 : 8)) continue;
    if (m.index > at) out.push({ data: Buffer.from(text.slice(at, m.index), 'utf8'), mode: 'byte' });
    out.push({ data: m[0], mode: 'numeric' });
    at = m.index + m[0].length;
  }
  if (at < text.length || out.length === 0) out.push({ data: Buffer.from(text.slice(at), 'utf8'), mode: 'byte' });
  return out;
}

/** The previous qrSvg, uncached: the library's symbol and renderer. */
function referenceSvg(text: string): { svg: string; version: number } {
  const base = QRCode.create(referenceSegments(text), { errorCorrectionLevel: 'M', maskPattern: 0 });
  const best = bestMasked(base.modules, (p) => getEncodedBits(base.errorCorrectionLevel, p));
  const symbol = { ...base, maskPattern: best.pattern as QRCode.QRCodeMaskPattern, modules: { ...base.modules, data: best.data } };
  return { svg: SvgRenderer.render(symbol, { margin: 2 }), version: base.version };
}

/** `qrcode`'s internals the tables and the version choice are checked against (no types of their own). */
const Utils = require('qrcode/lib/core/utils') as { getSymbolTotalCodewords(v: number): number };
const ECCode = require('qrcode/lib/core/error-correction-code') as {
  getTotalCodewordsCount(v: number, level: unknown): number;
  getBlocksCount(v: number, level: unknown): number;
};
const ECLevel = require('qrcode/lib/core/error-correction-level') as { M: unknown };
const Version = require('qrcode/lib/core/version') as { getBestVersionForData(segments: unknown, level: unknown): number | undefined };
const Segments = require('qrcode/lib/core/segments') as { fromArray(segments: LinkSegment[]): unknown };

const rng = seededRandom;

const BASE58 = '123456789ABCDEFGHJKMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const HEX = '0123456789abcdefABCDEF';
const MEMO = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-_.~:/?&=%@+';
/** Non-ASCII: 2-, 3- and 4-byte UTF-8 (a surrogate pair), and a lone surrogate (Buffer writes EF BF BD). */
const WIDE = ['é', 'ü', 'ß', 'Ж', '€', '中', '✓', '😀', '\ud800'];

function generators(rand: () => number) {
  const int = (n: number) => Math.floor(rand() * n);
  const pick = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[int(alphabet.length)]).join('');
  const digits = (n: number) => Array.from({ length: n }, (_, i) => (i === 0 && n > 1 ? 1 + int(9) : int(10))).join('');
  /** Amounts as canonicalAmount writes them: no trailing zeros, no trailing dot. */
  const decimal = () => {
    const whole = String(int(10) < 2 ? 0 : int(10 ** (1 + int(6))));
    const fraction = digits(int(7)).replace(/0+$/, '');
    return fraction ? `${whole}.${fraction}` : whole === '0' ? '1' : whole;
  };
  return {
    int,
    pick,
    digits,
    // EIP-681 (evm/codec.ts): contract@chain/transfer?address=...&uint256=<base units>.
    evm: () => `ethereum:0x${pick(HEX, 40)}@${[1, 56, 137, 42161][int(4)]}/transfer?address=0x${pick(HEX, 40)}&uint256=${digits(1 + int(26))}`,
    // tron/codec.ts: tron:<address>?token=<contract>&amount=<decimal>.
    tron: () => `tron:T${pick(BASE58, 33)}?token=TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t&amount=${decimal()}`,
    // ton/codec.ts: ton://transfer/<address>?jetton=<master>&amount=<base units>[&text=<memo>].
    ton: () => `ton://transfer/${['EQ', 'UQ'][int(2)]}${pick(BASE58 + '-_', 46)}?jetton=EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs&amount=${digits(1 + int(15))}${int(4) ? `&text=${pick(MEMO, 10)}` : ''}`,
    // solana/codec.ts: Solana Pay, solana:<address>?amount=<decimal>&spl-token=<mint>[&memo=<memo>].
    solana: () => `solana:${pick(BASE58, 32 + int(13))}?amount=${decimal()}&spl-token=Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p${int(4) ? '' : `&memo=${pick(MEMO, 10)}`}`,
  };
}

/** A random text of `length` UTF-16 units: letters, digit runs of every length, some non-ASCII. */
function randomText(rand: () => number, length: number, flavour: number): string {
  const g = generators(rand);
  let text = '';
  while (text.length < length) {
    const r = rand();
    if (flavour === 0 || r < 0.45) text += g.pick(LETTERS, 1 + g.int(12));
    else if (r < 0.9 || flavour === 1) text += g.digits(1 + g.int(flavour === 2 ? 30 : 12));
    else text += WIDE[g.int(WIDE.length)];
  }
  return text.slice(0, length); // may cut a surrogate pair: a lone surrogate again
}

/** Compares and records what was covered. */
function checkAll(texts: readonly string[]): { versions: Set<number>; numeric: number; byte: number } {
  const versions = new Set<number>();
  let numeric = 0;
  let byte = 0;
  for (const text of texts) {
    const expected = referenceSvg(text);
    const svg = renderQrSvg(text);
    if (svg !== expected.svg) throw new Error(`SVG differs for ${JSON.stringify(text)} (version ${expected.version})`);
    versions.add(expected.version);
    for (const s of linkSegments(text)) s.mode === 'numeric' ? numeric++ : byte++;
  }
  return { versions, numeric, byte };
}

describe('qrSvg encoder', () => {
  it('has the library\'s per-version tables (total codewords, EC codewords and blocks at M)', () => {
    for (let v = 1; v <= 40; v++) {
      expect(TOTAL_CODEWORDS[v - 1]).toBe(Utils.getSymbolTotalCodewords(v));
      expect(EC_CODEWORDS_M[v - 1]).toBe(ECCode.getTotalCodewordsCount(v, ECLevel.M));
      expect(EC_BLOCKS_M[v - 1]).toBe(ECCode.getBlocksCount(v, ECLevel.M));
    }
  });

  it('segments links as before: linkSegments equals the regex version', () => {
    const rand = rng(11);
    const g = generators(rand);
    const texts = [
      '', '1', '123', '1234', 'a1234', '1234a', 'a1234567b', 'a12345678b', '12345678', '😀1234😀', '\ud8001234567890\udc00',
      ...Array.from({ length: 400 }, (_, i) => randomText(rand, 1 + i, i % 4)),
      ...Array.from({ length: 100 }, (_, i) => [g.evm, g.tron, g.ton, g.solana][i % 4]!()),
    ];
    for (const text of texts) {
      const ours = linkSegments(text).map((s) => [s.mode, Buffer.from(s.data as string | Uint8Array).toString('hex')]);
      const theirs = referenceSegments(text).map((s) => [s.mode, Buffer.from(s.data as string | Uint8Array).toString('hex')]);
      expect(ours).toEqual(theirs);
    }
  });

  it('renders payment links of every network exactly as the library', () => {
    const rand = rng(2024);
    const g = generators(rand);
    const texts = Array.from({ length: 1200 }, (_, i) => [g.evm, g.tron, g.ton, g.solana][i % 4]!());
    const { versions, numeric } = checkAll(texts);
    expect(numeric).toBeGreaterThan(300); // amounts in base units take numeric segments
    expect(versions.size).toBeGreaterThanOrEqual(3);
  });

  it('renders random texts of every length from 1 to 700 exactly as the library (versions 1..20 and more, both modes)', () => {
    const rand = rng(0xc0de);
    const texts: string[] = [];
    for (let length = 1; length <= 700; length++) {
      texts.push(randomText(rand, length, length % 4));
      if (length % 3 === 0) texts.push(randomText(rand, length, 1)); // digit-heavy: numeric runs everywhere
    }
    const { versions, numeric, byte } = checkAll(texts);
    for (let v = 1; v <= 20; v++) expect(versions.has(v)).toBe(true);
    expect(numeric).toBeGreaterThan(500);
    expect(byte).toBeGreaterThan(500);
  });

  it('renders single-segment texts (all digits, no digits) at every version boundary up to 40', () => {
    // One segment takes the library's per-mode capacity rule (for numeric mode a floating-point
    // formula), so the lengths around each version's capacity are checked.
    const rand = rng(5);
    const texts: string[] = ['', '0', '12', '123', '1234', 'A', 'é'];
    for (let v = 1; v <= 40; v++) {
      const bits = (TOTAL_CODEWORDS[v - 1]! - EC_CODEWORDS_M[v - 1]!) * 8;
      const numericCap = Math.floor(((bits - 4 - (v < 10 ? 10 : v < 27 ? 12 : 14)) / 10) * 3);
      const byteCap = Math.floor((bits - 4 - (v < 10 ? 8 : 16)) / 8);
      // Full SVGs up to version 26 and for a few beyond (the library is slow there); the versions for all.
      for (const d of [-1, 0, 1]) {
        const digits = generators(rand).digits(Math.max(4, numericCap + d));
        const letters = generators(rand).pick('abcdefghij', Math.max(1, byteCap + d));
        for (const text of [digits, letters]) {
          const expected = Version.getBestVersionForData(Segments.fromArray(referenceSegments(text)), ECLevel.M);
          if (expected === undefined) expect(() => bestVersion(linkSegments(text))).toThrow('The amount of data is too big to be stored in a QR Code');
          else expect(bestVersion(linkSegments(text))).toBe(expected);
          if (expected !== undefined && (v <= 26 || v % 7 === 0 || v >= 39)) texts.push(text);
        }
      }
    }
    const { versions } = checkAll(texts);
    expect(Math.max(...versions)).toBe(40);
  });

  it('chooses the library\'s version for mixed segments up to version 40', () => {
    const rand = rng(77);
    for (let i = 0; i < 400; i++) {
      const text = randomText(rand, 1 + Math.floor(rand() * 3000), 2 + (i % 2));
      const expected = Version.getBestVersionForData(Segments.fromArray(referenceSegments(text)), ECLevel.M);
      if (expected === undefined) expect(() => bestVersion(linkSegments(text))).toThrow('The amount of data is too big');
      else expect(bestVersion(linkSegments(text))).toBe(expected);
    }
  });

  it('renders long mixed texts (versions 21..40) exactly as the library', () => {
    const rand = rng(99);
    const texts = Array.from({ length: 16 }, (_, i) => randomText(rand, 600 + i * 110, 2 + (i % 2)));
    const { versions } = checkAll(texts);
    expect(Math.max(...versions)).toBeGreaterThanOrEqual(35);
  });

  it('refuses what no version holds, as the library does', () => {
    const text = 'x'.repeat(2400);
    expect(() => referenceSvg(text)).toThrow('The amount of data is too big to be stored in a QR Code');
    expect(() => renderQrSvg(text)).toThrow('The amount of data is too big to be stored in a QR Code');
  });

  it('caches: qrSvg gives the uncached rendering, again from the cache', () => {
    const link = generators(rng(3)).evm();
    expect(qrSvgCached(link)).toBe(false);
    expect(qrSvg(link)).toBe(referenceSvg(link).svg);
    expect(qrSvgCached(link)).toBe(true);
    expect(qrSvg(link)).toBe(renderQrSvg(link));
  });

  it('keep: false renders the same SVG without caching it, and still answers from the cache', () => {
    const link = generators(rng(4)).evm();
    expect(qrSvg(link, { keep: false })).toBe(referenceSvg(link).svg);
    expect(qrSvgCached(link)).toBe(false);
    expect(qrSvg(link)).toBe(referenceSvg(link).svg); // a read keeps it
    expect(qrSvgCached(link)).toBe(true);
    expect(qrSvg(link, { keep: false })).toBe(referenceSvg(link).svg);
  });
});
