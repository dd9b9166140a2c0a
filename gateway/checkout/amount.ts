import { Decimal as DecimalJs } from 'decimal.js';

/**
 * Display arithmetic on the daemon's canonical decimal strings ("10.5", "0.000001") with decimal.js.
 * A private clone, so nobody's `Decimal.set()` can change it; 80 significant digits hold every
 * amount (30 integer digits and 18 token decimals) many times over, so + and − never round, and
 * toExpNeg/toExpPos keep its text out of exponents. The gateway only adds, subtracts, compares and
 * rounds up for display: every amount that counts is the daemon's.
 */
export const Amount = DecimalJs.clone({ precision: 80, rounding: DecimalJs.ROUND_HALF_UP, toExpNeg: -9e15, toExpPos: 9e15 });
export type Amount = DecimalJs;

/** A plain decimal, as the daemon writes amounts: decimal.js alone would also take "1e5", "0x1f" or "Infinity". */
const PLAIN_DECIMAL = /^-?\d+(?:\.\d+)?$/;

export class DecimalFormatError extends Error {
  override readonly name = 'DecimalFormatError';
  constructor(readonly value: string) {
    super('not a decimal string');
  }
}

/** One of the daemon's amounts; throws DecimalFormatError for anything but a plain decimal string. */
export function amount(value: string): Amount {
  if (!PLAIN_DECIMAL.test(value)) throw new DecimalFormatError(value);
  return new Amount(value);
}

/** Canonical text: plain notation, no trailing zeros, "0" for any zero (also −0). */
export function amountText(value: Amount): string {
  return value.isZero() ? '0' : value.toFixed();
}

/** Rounded up (towards +∞) to `decimals` places, as the daemon makes pay_amount payable. */
export function ceilAmount(value: Amount, decimals: number): Amount {
  return value.toDecimalPlaces(decimals, Amount.ROUND_CEIL);
}
