/** Non-hardened BIP-32 child numbers are 0 <= i < 2^31. */
export const HARDENED_OFFSET = 0x80000000;

/** count >= 0 consecutive non-hardened child numbers from `from`: RangeError otherwise (a hardened index would derive another key altogether). */
export function assertChildRange(from: number, count: number): void {
  if (!Number.isInteger(from) || !Number.isInteger(count) || from < 0 || count < 0 || from + count > HARDENED_OFFSET) {
    throw new RangeError(`child indexes must be non-hardened: [${from}, ${from} + ${count}) is not within [0, 2^31)`);
  }
}
