/**
 * A QR module matrix as `qrcode` keeps it (one byte per module, 0 or 1, row-major) packed into one
 * bit stream: bit i of word i >> 5 is module i. Shared by the mask scoring (qr-mask.ts) and the SVG
 * writer (qr-svg.ts), which both work on 32 modules at a time.
 */

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** Words a stream of `len` modules needs: the whole words, the tail word and two zero words after it (read past the end by row cutters). */
export const streamWords = (len: number): number => (len >>> 5) + 3;

/**
 * Packs d[0..len) into `out` (at least streamWords(len) words): the whole words, then the tail
 * word (0 past the last module) and two zero words. 4 bytes at a time where they can be read as a
 * little-endian word: the multiply by 0x01020408 gathers bytes 0..3 into bits 24..27 (byte k lands
 * at 8k + 24 - 7k; the cross terms land elsewhere, on distinct bits, so nothing carries).
 */
export function packBits(d: Uint8Array, len: number, out: Int32Array): void {
  const full = len >>> 5;
  if (LITTLE_ENDIAN && (d.byteOffset & 3) === 0) {
    const q = new Int32Array(d.buffer, d.byteOffset, full * 8);
    for (let k = 0, j = 0; k < full; k++, j += 8) {
      out[k] = (Math.imul(q[j]!, 0x01020408) >>> 24)
        | ((Math.imul(q[j + 1]!, 0x01020408) >>> 24) << 4)
        | ((Math.imul(q[j + 2]!, 0x01020408) >>> 24) << 8)
        | ((Math.imul(q[j + 3]!, 0x01020408) >>> 24) << 12)
        | ((Math.imul(q[j + 4]!, 0x01020408) >>> 24) << 16)
        | ((Math.imul(q[j + 5]!, 0x01020408) >>> 24) << 20)
        | ((Math.imul(q[j + 6]!, 0x01020408) >>> 24) << 24)
        | ((Math.imul(q[j + 7]!, 0x01020408) >>> 24) << 28);
    }
  } else {
    for (let k = 0, i = 0; k < full; k++) {
      let word = 0;
      for (let b = 0; b < 32; b++, i++) word |= d[i]! << b;
      out[k] = word;
    }
  }
  let tail = 0;
  for (let i = full * 32, b = 0; i < len; i++, b++) tail |= d[i]! << b;
  out[full] = tail;
  out[full + 1] = 0;
  out[full + 2] = 0;
}
