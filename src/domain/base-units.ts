import { assertDecimals, toDecimal, type AmountLike } from './decimal';
import { ValidationError } from './errors';

/**
 * Token amount → integer base units (e.g. "10.5" with 6 decimals → 10500000n). Exact: an amount
 * with more decimals than the token has cannot be sent, so it is refused (`too_many_decimals`)
 * rather than rounded.
 */
export function toBaseUnits(amount: AmountLike, decimals: number): bigint {
  assertDecimals(decimals);
  const d = toDecimal(amount);
  if (d.decimalPlaces() > decimals) {
    throw new ValidationError('too_many_decimals', `amount has more than ${decimals} decimals`, undefined, {
      amount: d.toFixed(),
      max_decimals: decimals,
    });
  }
  return BigInt(d.times(toDecimal(`1${'0'.repeat(decimals)}`)).toFixed(0));
}

/** Integer base units → canonical decimal string (10500000n with 6 decimals → "10.5"). */
export function fromBaseUnits(units: bigint, decimals: number): string {
  assertDecimals(decimals);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : whole;
  return negative && text !== '0' ? `-${text}` : text;
}
