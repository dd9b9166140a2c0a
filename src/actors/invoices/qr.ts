import QRCode from 'qrcode';
// The SVG renderer of `qrcode` is synchronous; the package's top-level toString is callback-only.
import SvgRenderer from 'qrcode/lib/renderer/svg-tag';

const cache = new Map<string, string>();
const MAX_CACHED = 20_000;

/**
 * SVG of a QR code for a payment link (error correction M keeps it scannable from a screen).
 * Deterministic, so it is computed on read and cached instead of being stored.
 */
export function qrSvg(text: string): string {
  const hit = cache.get(text);
  if (hit !== undefined) return hit;
  const svg = SvgRenderer.render(QRCode.create(text, { errorCorrectionLevel: 'M' }), { margin: 2 });
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string);
  cache.set(text, svg);
  return svg;
}
