import QRCode from 'qrcode';
import { getEncodedBits } from 'qrcode/lib/core/format-info';
import type { ModuleMatrix } from './qr-mask';

/**
 * The module matrix of a QR code at level M with mask 0, as `QRCode.create(..., { maskPattern: 0 })`
 * leaves it (the input of qr-mask.ts's bestMasked), from its codewords.
 *
 * Everything but the data modules depends only on the version: the function patterns (finder,
 * separators, timing, alignment), the format modules written for mask 0, the version modules and
 * which modules are reserved. That part is taken once per version from the library itself (a
 * symbol with no data), so it is the library's by construction; per call only the data bits are
 * placed, in the order setupData walks the matrix, onto an image of mask 0.
 */

/** `qrcode`'s error-correction level M (error-correction-level.js: { bit: 0 }). */
const LEVEL_M = { bit: 0 };

/** The 15 format bits of level M and each mask pattern (FormatInfo.getEncodedBits), by pattern. */
export const FORMAT_BITS_M: readonly number[] = Array.from({ length: 8 }, (_, p) => getEncodedBits(LEVEL_M, p));

interface Layout {
  readonly size: number;
  /** The reserved modules (1) as the library marks them; bestMasked keeps them out of the masks. */
  readonly reservedBit: Uint8Array;
  /** The symbol with all data bits 0: function patterns, mask-0 format bits, and mask 0 (dark where (row + col) is even) on the data modules. */
  readonly base: Uint8Array;
  /**
   * Per data bit k (bit 7 - (k & 7) of codeword k >> 3), in setupData's order: its module's index
   * (row * size + col) times 2, plus the module's bit under mask 0. The remainder modules after the
   * last codeword are left out: setupData leaves them 0, so they keep the base.
   */
  readonly placement: Int32Array;
  /** Where maskZeroMatrix builds the symbol (a fresh array of this size would live off-heap and cost more than the placement). */
  readonly scratch: Uint8Array;
}

const layouts = new Map<number, Layout>();

/**
 * setupData's walk: column pairs from the right (the timing column 6 skipped), up then down in
 * turn, right module before left in each row, every module not reserved.
 */
function placementOrder(size: number, reserved: Uint8Array): number[] {
  const order: number[] = [];
  let up = true;
  for (let col = size - 1; col > 0; col -= 2) {
    if (col === 6) col--;
    for (let k = 0; k < size; k++) {
      const row = up ? size - 1 - k : k;
      for (let c = 0; c < 2; c++) {
        const at = row * size + col - c;
        if (!reserved[at]) order.push(at);
      }
    }
    up = !up;
  }
  return order;
}

function layoutFor(version: number): Layout {
  const cached = layouts.get(version);
  if (cached) return cached;
  const empty = QRCode.create([], { version, errorCorrectionLevel: 'M', maskPattern: 0 }).modules;
  const size = empty.size;
  const reservedBit = empty.reservedBit.slice();
  const base = empty.data.slice();
  for (let row = 0, at = 0; row < size; row++) {
    for (let col = 0; col < size; col++, at++) if (!reservedBit[at]) base[at] = (row + col) % 2 === 0 ? 1 : 0;
  }
  const order = placementOrder(size, reservedBit);
  const codewords = order.length >>> 3;
  const placement = Int32Array.from(order.slice(0, codewords * 8), (at) => at * 2 + base[at]!);
  const layout: Layout = { size, reservedBit, base, placement, scratch: new Uint8Array(size * size) };
  layouts.set(version, layout);
  return layout;
}

/** Module e >> 1 shows data bit `bit` under mask 0 (e & 1): a data bit d under mask m is d XOR m. */
function place(data: Uint8Array, e: number, bit: number): void {
  data[e >>> 1] = (e & 1) ^ bit;
}

/**
 * The mask-0 symbol of `version` holding `codewords` (data then error correction, interleaved, as
 * many as the version has): the base, then every data module written from its bit.
 *
 * No test per bit (the bits are random, a branch would be mispredicted half the time), only writes
 * (no read of the module first), and the 8 bits of a codeword written unrolled (as a loop it takes
 * about 2.5x as long).
 *
 * Its `data` is scratch of the version, overwritten by the next call for the same version: read it
 * before (bestMasked reads it and returns modules of its own).
 */
export function maskZeroMatrix(version: number, codewords: Uint8Array): ModuleMatrix {
  const { size, reservedBit, base, placement: p, scratch: data } = layoutFor(version);
  if (codewords.length * 8 !== p.length) throw new RangeError(`version ${version} holds ${p.length / 8} codewords, not ${codewords.length}`);
  data.set(base);
  for (let i = 0, k = 0; i < codewords.length; i++, k += 8) {
    const byte = codewords[i]!;
    place(data, p[k]!, byte >>> 7);
    place(data, p[k + 1]!, (byte >>> 6) & 1);
    place(data, p[k + 2]!, (byte >>> 5) & 1);
    place(data, p[k + 3]!, (byte >>> 4) & 1);
    place(data, p[k + 4]!, (byte >>> 3) & 1);
    place(data, p[k + 5]!, (byte >>> 2) & 1);
    place(data, p[k + 6]!, (byte >>> 1) & 1);
    place(data, p[k + 7]!, byte & 1);
  }
  return { size, data, reservedBit };
}
