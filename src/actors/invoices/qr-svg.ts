import { packBits, streamWords } from './qr-bits';

/**
 * The SVG of a module matrix, character for character what `qrcode`'s svg-tag renderer writes with
 * `{ margin: 2 }` and the default colours (dark #000000ff, light #ffffffff, both opaque, so no
 * opacity attributes and no size): a white square of size + 4, then one stroked path drawing each
 * horizontal run of dark modules as a line through the middle of its row.
 *
 * The path (svg-tag.js qrToPath): the first run of a row starts with an absolute move to
 * "M<col + 2> <row + 2.5>", later runs with a relative "m<light modules since the last run> 0";
 * each run is "h<length>". The library walks every module, concatenates a string per command and
 * re-parses the colours per call; here the runs are found a word at a time, the text is written
 * as bytes and the fixed parts are built once per size. ~5 us for a version 8 symbol against ~46.
 */


const MARGIN = 2;

/** The fixed text around the path, per size, as Latin-1 bytes (all of it is ASCII). */
interface Frame {
  readonly head: Uint8Array;
  readonly tail: Uint8Array;
}

const frames = new Map<number, Frame>();

function frameFor(size: number): Frame {
  let f = frames.get(size);
  if (f) return f;
  const q = size + MARGIN * 2;
  f = {
    head: Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${q} ${q}" shape-rendering="crispEdges"><path fill="#ffffff" d="M0 0h${q}v${q}H0z"/><path stroke="#000000" d="`, 'latin1'),
    tail: Buffer.from('"/></svg>\n', 'latin1'),
  };
  frames.set(size, f);
  return f;
}

/**
 * The text is written as bytes into one buffer, reused and grown, and decoded once: cheaper than
 * joining hundreds of short strings and converting numbers (row + 2.5 is a double) one by one.
 */
let out = Buffer.alloc(1 << 16);

/**
 * Upper bound of the SVG's length (numbers are below 1000 up to version 40): a row's first run is
 * at most "M999 999.5h999" (14 bytes), every later one "m999 0h999" (10) and covers at least two
 * modules (itself and the light one before it), so 7 per module and 16 per row are enough.
 */
const maxLength = (size: number, frame: Frame): number => frame.head.length + frame.tail.length + size * (size * 7 + 16);

/** Writes the decimal digits of the non-negative integer n at `at`; returns the next index. */
function writeInt(buf: Uint8Array, at: number, n: number): number {
  if (n < 10) {
    buf[at] = 48 + n;
    return at + 1;
  }
  if (n < 100) {
    buf[at] = 48 + ((n / 10) | 0);
    buf[at + 1] = 48 + (n % 10);
    return at + 2;
  }
  const digits = String(n);
  for (let i = 0; i < digits.length; i++) buf[at + i] = digits.charCodeAt(i);
  return at + digits.length;
}

const M = 0x4d, m = 0x6d, h = 0x68, SPACE = 0x20, ZERO = 0x30, DOT = 0x2e, FIVE = 0x35;

/** Index of the lowest set bit of a non-zero word. */
const lowestBit = (x: number): number => 31 - Math.clz32(x & -x);

/** Scratch, grown with the size: the matrix as one bit stream (qr-bits.ts), and one row's words plus a zero word. */
let stream = new Int32Array(128);
let row = new Int32Array(8);

/**
 * The SVG of `data` (row-major, size x size, 1 = dark).
 *
 * The runs are found a word (32 modules) at a time, not a module at a time: in a row's words x
 * (aligned to its first module, 0 past it), the runs start at the bits of x & ~(x << 1) and end at
 * those of x & ~(x >> 1) (the neighbouring words' bits shifted in). Starts and ends alternate, so
 * the lowest start pairs with the lowest end, or with the first end of the next word when the run
 * goes on. The loops then branch per word rather than per run or module (the modules are random
 * in the data area): ~3x faster than a loop over the bytes.
 */
export function svgOf(size: number, data: Uint8Array): string {
  const frame = frameFor(size);
  const need = maxLength(size, frame);
  if (out.length < need) out = Buffer.alloc(need);
  const len = size * size;
  if (stream.length < streamWords(len)) stream = new Int32Array(streamWords(len));
  const words = (size + 31) >>> 5;
  if (row.length < words + 1) row = new Int32Array(words + 1);
  const bits = stream;
  const x = row;
  packBits(data, len, bits);
  const buf = out;
  buf.set(frame.head, 0);
  let at = frame.head.length;
  const tail = size - 32 * (words - 1);
  const lastWord = tail === 32 ? -1 : (1 << tail) - 1;
  x[words] = 0;
  for (let r = 0, begin = 0; r < size; r++, begin += size) {
    for (let w = 0; w < words; w++) {
      const q = (begin >>> 5) + w;
      const s = begin & 31;
      const word = s === 0 ? bits[q]! : (bits[q]! >>> s) | (bits[q + 1]! << (32 - s));
      x[w] = w === words - 1 ? word & lastWord : word;
    }
    // The first module of a run not yet ended (-1: none); the end of the row's last run (-1: none
    // yet, the next run moves absolutely; later ones by the light modules since, svg-tag's moveBy).
    let start = -1;
    let last = -1;
    for (let w = 0; w < words; w++) {
      const v = x[w]!;
      let starts = v & ~((v << 1) | (w > 0 ? x[w - 1]! >>> 31 : 0));
      let ends = v & ~((v >>> 1) | (x[w + 1]! << 31));
      for (;;) {
        if (start < 0) {
          if (starts === 0) break;
          start = (w << 5) + lowestBit(starts);
          starts &= starts - 1;
        }
        if (ends === 0) break; // the run goes on in the next word
        const stop = (w << 5) + lowestBit(ends) + 1;
        ends &= ends - 1;
        if (last < 0) {
          // "M<col + 2> <row + 2.5>"
          buf[at] = M;
          at = writeInt(buf, at + 1, start + MARGIN);
          buf[at] = SPACE;
          at = writeInt(buf, at + 1, r + MARGIN);
          buf[at] = DOT;
          buf[at + 1] = FIVE;
          at += 2;
        } else {
          // "m<light modules since the last run> 0"
          buf[at] = m;
          at = writeInt(buf, at + 1, start - last);
          buf[at] = SPACE;
          buf[at + 1] = ZERO;
          at += 2;
        }
        buf[at] = h;
        at = writeInt(buf, at + 1, stop - start);
        last = stop;
        start = -1;
      }
    }
  }
  buf.set(frame.tail, at);
  at += frame.tail.length;
  return buf.toString('latin1', 0, at);
}
