import { Dec, type Decimal } from './decimal';
import { MalformedRequestError, ValidationError } from './errors';

export interface ParseAmountOptions {
  /** The request field, reported as `error.field`. */
  readonly field: string;
  /** Most decimal places the value may have (8 for invoice amounts). */
  readonly maxDecimals: number;
}

/**
 * Most integer digits of a client's amount (invoice and withdrawal). Amount columns are
 * numeric(38,18): 20 integer digits. Bounding the input at 18 keeps everything derived from it in
 * range too: with a platform fee of at most 100 %, pay_amount = amount + platform_fee + network_fee
 * stays below 2·10^18 + network_fee, far under 10^20, so an accepted amount never fails to store
 * (a 500 after validation). Far beyond any USDT supply; also bounds the work spent on hostile input.
 */
export const MAX_INTEGER_DIGITS = 18;
const MAX_LENGTH = 100;
const PLAIN_POSITIVE_DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * A client's amount: a JSON string holding a plain positive decimal ("10", "10.5"); no sign,
 * exponent, spaces or thousands separators. Trailing zeros do not count as decimals ("1.50000000000"
 * has one). Throws MalformedRequestError (not a string: 400) or ValidationError (422):
 * `invalid_amount`, `too_many_decimals`, `amount_must_be_positive`.
 */
export function parseAmount(input: unknown, opts: ParseAmountOptions): Decimal {
  const { field, maxDecimals } = opts;
  if (typeof input !== 'string') {
    throw new MalformedRequestError(`${field} must be a decimal string`, field);
  }
  const match = input.length <= MAX_LENGTH ? PLAIN_POSITIVE_DECIMAL.exec(input) : null;
  // Leading zeros ("007.25") are not digits of the value; MAX_LENGTH bounds them.
  if (!match || match[1]!.replace(/^0+/, '').length > MAX_INTEGER_DIGITS) {
    throw new ValidationError('invalid_amount', `${field} must be a decimal string like "10.5"`, field);
  }
  const value = new Dec(input);
  if (value.decimalPlaces() > maxDecimals) {
    throw new ValidationError('too_many_decimals', `${field} has more than ${maxDecimals} decimals`, field, {
      max_decimals: maxDecimals,
    });
  }
  if (value.isZero()) {
    throw new ValidationError('amount_must_be_positive', `${field} must be greater than 0`, field);
  }
  return value;
}
