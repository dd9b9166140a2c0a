import { fromBaseUnits as fromUnits, toBaseUnits as toUnits } from '../domain/base-units';
import { Dec } from '../domain/decimal';
import { ValidationError } from '../domain/errors';

/**
 * Token amounts between decimal strings and base units, as the chain codecs need them: unsigned,
 * with their own error codes. The arithmetic is the domain's (decimal.js at 80 digits, exact for
 * every amount a token can hold).
 */

const DECIMAL = /^\d+(?:\.\d+)?$/;

/** "10.5" with 6 decimals -> 10500000n. Refuses signs, exponents and more decimals than the token has. */
export function toBaseUnits(amount: string, decimals: number, field = 'amount'): bigint {
  if (!DECIMAL.test(amount)) throw new ValidationError('invalid_amount', `amount must be a decimal string like "10.5": ${amount}`, field);
  const value = new Dec(amount);
  if (value.decimalPlaces() > decimals) {
    throw new ValidationError('amount_precision', `amount has more than ${decimals} decimals`, field, { decimals });
  }
  // Dec holds 80 digits exactly: far more than any token supply, but an amount beyond that is refused, not rounded.
  if (value.e + 1 + decimals > 80) throw new ValidationError('invalid_amount', 'amount is too large', field);
  return toUnits(value, decimals);
}

/** 10500000n with 6 decimals -> "10.5" (canonical: no trailing zeros, no trailing dot). */
export function fromBaseUnits(units: bigint, decimals: number): string {
  if (units < 0n) throw new RangeError('base units must not be negative');
  return fromUnits(units, decimals);
}

/** Canonical decimal form of an amount the token can represent ("010.50" -> "10.5"). */
export function canonicalAmount(amount: string, decimals: number, field = 'amount'): string {
  return fromBaseUnits(toBaseUnits(amount, decimals, field), decimals);
}
