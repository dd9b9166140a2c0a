import { Decimal as DecimalJs } from 'decimal.js';

/**
 * The one Decimal constructor of chainpay. A private clone, so nobody's `Decimal.set()` can change
 * our arithmetic. 80 significant digits hold 30 integer digits plus 18 token decimals many times
 * over, so + − × ÷ on amounts never round; toExpNeg/toExpPos keep toString() out of exponents.
 */
export const Dec = DecimalJs.clone({
  precision: 80,
  rounding: DecimalJs.ROUND_HALF_UP,
  toExpNeg: -9e15,
  toExpPos: 9e15,
});

/** Instances of Dec (same shape as decimal.js's Decimal). */
export type Decimal = DecimalJs;

/** An amount as our code passes it around: a canonical decimal string or a Decimal. Never a number. */
export type AmountLike = string | DecimalJs;

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * A trusted decimal (config, database, our own output) as a Dec. Throws RangeError on anything
 * that is not a plain decimal string: input from clients goes through parseAmount instead.
 */
export function toDecimal(value: AmountLike): Decimal {
  if (typeof value === 'string') {
    if (!PLAIN_DECIMAL.test(value)) throw new RangeError(`not a decimal string: ${JSON.stringify(value)}`);
    return new Dec(value);
  }
  if (!DecimalJs.isDecimal(value) || !value.isFinite()) throw new RangeError('not a finite Decimal');
  return new Dec(value);
}

/**
 * Canonical text of an amount: plain notation (never an exponent, also for 1e-18 or 1e30),
 * no trailing zeros ("10.50" → "10.5"), "0" for any zero (also −0).
 */
export function formatAmount(value: AmountLike): string {
  const d = toDecimal(value);
  if (d.isZero()) return '0';
  return d.toFixed();
}

/** Round up (towards +∞) to `decimals` places: what makes an amount payable in a token. */
export function ceilTo(value: AmountLike, decimals: number): Decimal {
  assertDecimals(decimals);
  return toDecimal(value).toDecimalPlaces(decimals, Dec.ROUND_CEIL);
}

/** The larger of two amounts (e.g. `max(0, x)` for balances that never go below zero). */
export function maxAmount(a: AmountLike, b: AmountLike): Decimal {
  return Dec.max(toDecimal(a), toDecimal(b));
}

export function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > 36) {
    throw new RangeError(`decimals must be an integer 0..36, got ${decimals}`);
  }
}
