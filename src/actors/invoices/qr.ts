import QRCode from 'qrcode';
import { getEncodedBits } from 'qrcode/lib/core/format-info';
import { type LinkSegment, segmentCodewords } from './qr-codewords';
import { bestMasked } from './qr-mask';
import { FORMAT_BITS_M, maskZeroMatrix } from './qr-matrix';
import { svgOf } from './qr-svg';

const cache = new Map<string, string>();
const MAX_CACHED = 20_000;

/**
 * Segments for a payment link: byte mode, with the digit runs where numeric mode saves bits
 * (amounts in base units, long numbers). `qrcode`'s own optimiser finds the cheapest split with a
 * graph search that costs more than everything else of a code together (~0.3 ms); for payment links
 * this gives the same QR version (qr.test.ts). A run pays off from 8 digits inside the text (the
 * segment headers cost up to 36 bits) and from 4 at either end.
 *
 * A scan over the character codes rather than a /\d+/ match and a Buffer per segment, ~1.6x as fast
 * for the same segments (qr-encode.test.ts compares it with the regex version).
 */
export function linkSegments(text: string): LinkSegment[] {
  const out: LinkSegment[] = [];
  // The text's UTF-8 once; if it is ASCII (as many bytes as UTF-16 units), byte i is character i
  // and a byte segment is a view of it. Otherwise each is encoded on its own: a digit is never half
  // of a surrogate pair, so cutting at digit runs splits no character.
  const utf8 = Buffer.from(text, 'utf8');
  const bytes = (from: number, to: number): Uint8Array =>
    utf8.length === text.length ? utf8.subarray(from, to) : Buffer.from(text.slice(from, to), 'utf8');
  let at = 0;
  for (let i = 0; i < text.length; ) {
    if (!isDigit(text.charCodeAt(i))) {
      i++;
      continue;
    }
    let end = i + 1;
    while (end < text.length && isDigit(text.charCodeAt(end))) end++;
    const edge = i === 0 || end === text.length;
    if (end - i >= (edge ? 4 : 8)) {
      if (i > at) out.push({ data: bytes(at, i), mode: 'byte' });
      out.push({ data: text.slice(i, end), mode: 'numeric' });
      at = end;
    }
    i = end;
  }
  if (at < text.length || out.length === 0) out.push({ data: bytes(at, text.length), mode: 'byte' });
  return out;
}

/** 0-9, what \d matches. */
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * The QR code of a payment link as the `qrcode` package builds it (error correction M keeps it
 * scannable from a screen), with the mask chosen by qr-mask.ts: the same rule and symbol as
 * `qrcode`'s own loop, ~100x cheaper. The library's object, for tests and callers that want one;
 * qrSvg draws the same modules without it (qr-encode.test.ts).
 */
export function qrSymbol(text: string): QRCode.QRCode {
  const base = QRCode.create(linkSegments(text), { errorCorrectionLevel: 'M', maskPattern: 0 });
  const best = bestMasked(base.modules, (p) => getEncodedBits(base.errorCorrectionLevel, p));
  return { ...base, maskPattern: best.pattern as QRCode.QRCodeMaskPattern, modules: { ...base.modules, data: best.data } };
}

const formatBitsM = (pattern: number): number => FORMAT_BITS_M[pattern]!;

/**
 * The SVG of a payment link's QR code, uncached: byte for byte what `qrcode` renders (svg-tag,
 * margin 2) for qrSymbol(text) (qr-encode.test.ts), built by qr-codewords.ts, qr-matrix.ts,
 * qr-mask.ts and qr-svg.ts: ~35 us per payment link against ~115 us through the library, of which
 * the mask selection is now over half.
 */
export function renderQrSvg(text: string): string {
  const { version, codewords } = segmentCodewords(linkSegments(text));
  const symbol = maskZeroMatrix(version, codewords);
  return svgOf(symbol.size, bestMasked(symbol, formatBitsM).data);
}

/**
 * SVG of a QR code for a payment link. Deterministic, so it is computed on read and cached
 * instead of being stored. `keep: false` (the response to a creation) uses a cached SVG but does
 * not add one: each new invoice's SVG (~3.5 KB) would otherwise live in the cache long enough to
 * reach V8's old generation and die there, ~20,000 invoices later. At 2,000 creations a second that
 * was most of the daemon's old-generation garbage, and the mark-compacts that collected it (~0.5 GB
 * at a time) were followed by stalls of 150-450 ms (measured, scenarios 1-2 of the bench). An
 * invoice's first read (the checkout page, a poll) renders it again and keeps it.
 */
export function qrSvg(text: string, options: { keep?: boolean } = {}): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const svg = renderQrSvg(text);
  if (options.keep === false) return svg;
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(text, svg);
  return svg;
}

/** Whether the SVG of `text` is cached (tests). */
export function qrSvgCached(text: string): boolean {
  return cache.has(text);
}
