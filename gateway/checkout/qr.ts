import { trustedHtml, type SafeHtml } from './html';

/**
 * The daemon's `qr_svg` is inlined into the page, so it is checked against the exact shape the
 * `qrcode` package emits (an `<svg>` of `<path>`/`<rect>` elements with presentation attributes)
 * instead of being trusted: anything else (script, foreignObject, event handlers, links, styles)
 * makes this return null and the page shows no QR code.
 */
const ATTRIBUTE = /\s+([a-zA-Z:-]+)="([^"<>&]*)"/gy;
const ALLOWED_ATTRIBUTES = new Set(['xmlns', 'viewBox', 'shape-rendering', 'width', 'height', 'version', 'fill', 'stroke', 'stroke-width', 'd', 'x', 'y']);
const XMLNS = 'http://www.w3.org/2000/svg';
// Path data, numbers, colours: no parentheses, so no url(...) reference to anything outside.
const PLAIN_VALUE = /^[A-Za-z0-9 .,#-]*$/;
const MAX_LENGTH = 200_000;

export function sanitizeQrSvg(svg: string | undefined): SafeHtml | null {
  if (!svg) return null;
  const text = svg.trim();
  if (text.length > MAX_LENGTH || !text.startsWith('<svg') || !text.endsWith('</svg>')) return null;
  let at = '<svg'.length;
  const open = readAttributes(text, at, '>');
  if (open === null || open.attrs.get('xmlns') !== XMLNS) return null;
  at = open.end;
  const closing = text.length - '</svg>'.length;
  while (at < closing) {
    const tag = /^<(path|rect)/.exec(text.slice(at, at + 5));
    if (tag === null) return null;
    const element = readAttributes(text, at + tag[0].length, '/>');
    if (element === null) return null;
    at = element.end;
  }
  if (at !== closing) return null;
  // Decorative inside the labelled wrapper; the accessible name is the wrapper's.
  return trustedHtml(text.replace(/^<svg/, '<svg aria-hidden="true" focusable="false"'));
}

function readAttributes(text: string, from: number, terminator: string): { attrs: Map<string, string>; end: number } | null {
  const attrs = new Map<string, string>();
  ATTRIBUTE.lastIndex = from;
  let at = from;
  for (let m = ATTRIBUTE.exec(text); m !== null; m = ATTRIBUTE.exec(text)) {
    const [, name = '', value = ''] = m;
    if (!ALLOWED_ATTRIBUTES.has(name) || attrs.has(name)) return null;
    if (name !== 'xmlns' && !PLAIN_VALUE.test(value)) return null;
    attrs.set(name, value);
    at = ATTRIBUTE.lastIndex;
  }
  if (!text.startsWith(terminator, at)) return null;
  return { attrs, end: at + terminator.length };
}
