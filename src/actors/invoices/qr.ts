import QRCode from 'qrcode';
// The SVG renderer of `qrcode` is synchronous; the package's top-level toString is callback-only.
import SvgRenderer from 'qrcode/lib/renderer/svg-tag';
import { getEncodedBits } from 'qrcode/lib/core/format-info';
import { bestMasked } from './qr-mask';

const cache = new Map<string, string>();
const MAX_CACHED = 20_000;

/**
 * Segments for a payment link: byte mode, with the digit runs where numeric mode saves bits
 * (amounts in base units, long numbers). `qrcode`'s own optimiser finds the cheapest split with a
 * graph search that costs more than everything else of a code together (~0.3 ms); for payment links
 * this gives the same QR version (qr.test.ts). A run pays off from 8 digits inside the text (the
 * segment headers cost up to 36 bits) and from 4 at either end.
 */
export function linkSegments(text: string): QRCode.QRCodeSegment[] {
  const out: QRCode.QRCodeSegment[] = [];
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

/**
 * The QR code of a payment link (error correction M keeps it scannable from a screen), with the
 * mask chosen by qr-mask.ts: the same rule and symbol as `qrcode`'s own loop, ~100x cheaper.
 */
export function qrSymbol(text: string): QRCode.QRCode {
  const base = QRCode.create(linkSegments(text), { errorCorrectionLevel: 'M', maskPattern: 0 });
  const best = bestMasked(base.modules, (p) => getEncodedBits(base.errorCorrectionLevel, p));
  return { ...base, maskPattern: best.pattern as QRCode.QRCodeMaskPattern, modules: { ...base.modules, data: best.data } };
}

/**
 * SVG of a QR code for a payment link. Deterministic, so it is computed on read and cached
 * instead of being stored.
 */
export function qrSvg(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const svg = SvgRenderer.render(qrSymbol(text), { margin: 2 });
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(text, svg);
  return svg;
}
