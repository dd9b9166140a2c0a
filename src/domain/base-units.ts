import { assertDecimals, Dec, formatAmount, toDecimal, type AmountLike, type Decimal } from './decimal';
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
  return BigInt(d.times(unit(decimals)).toFixed(0));
}

/** Integer base units → canonical decimal string (10500000n with 6 decimals → "10.5"). Exact: Dec holds 80 digits. */
export function fromBaseUnits(units: bigint, decimals: number): string {
  assertDecimals(decimals);
  return formatAmount(toDecimal(units.toString()).div(unit(decimals)));
}

/** 10^decimals, what one token is in base units. */
function unit(decimals: number): Decimal {
  return Dec.pow(10, decimals);
}
