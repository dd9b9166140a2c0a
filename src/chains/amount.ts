import { ValidationError } from '../domain/errors';

/**
 * Token amounts between decimal strings and base units. Pure string/bigint arithmetic: no float
 * and no decimal.js rounding (18-decimal amounts exceed decimal.js' default 20 significant digits).
 */

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** "10.5" with 6 decimals -> 10500000n. Refuses signs, exponents and more decimals than the token has. */
export function toBaseUnits(amount: string, decimals: number, field = 'amount'): bigint {
  const match = DECIMAL.exec(amount);
  if (!match) throw new ValidationError('invalid_amount', `amount must be a decimal string like "10.5": ${amount}`, field);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  if (fraction.length > decimals) {
    throw new ValidationError('amount_precision', `amount has more than ${decimals} decimals`, field, { decimals });
  }
  return BigInt(match[1]! + fraction.padEnd(decimals, '0'));
}

/** 10500000n with 6 decimals -> "10.5" (canonical: no trailing zeros, no trailing dot). */
export function fromBaseUnits(units: bigint, decimals: number): string {
  if (units < 0n) throw new RangeError('base units must not be negative');
  const digits = units.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole;
}

/** Canonical decimal form of an amount the token can represent ("010.50" -> "10.5"). */
export function canonicalAmount(amount: string, decimals: number, field = 'amount'): string {
  return fromBaseUnits(toBaseUnits(amount, decimals, field), decimals);
}
