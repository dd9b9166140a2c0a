import { ValidationError } from './errors';

/**
 * Free text of a request, stored exactly or refused (issue 37). PostgreSQL's text cannot hold
 * U+0000, and a lone surrogate has no UTF-8 form (the driver would store U+FFFD, so two different
 * strings could name one row): both are refused with 422 `invalid_<field>`. Lengths are counted
 * in code points, as a merchant counts characters (an emoji is one, not two UTF-16 units).
 */

/** Code points of `s` (a lone surrogate counts as one). */
export function codePointLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** A surrogate that is not half of a pair (with the `u` flag a pair is one code point, never matched). */
const LONE_SURROGATE = /\p{Cs}/u;

/** Why `s` cannot be stored exactly, or null. */
export function unstorable(s: string): string | null {
  if (s.includes('\u0000')) return 'contains a NUL character (U+0000)';
  if (LONE_SURROGATE.test(s)) return 'contains a lone UTF-16 surrogate (not a Unicode character)';
  return null;
}

/** Throws 422 `invalid_<field>` when `value` cannot be stored exactly. */
export function assertStorable(value: string, field: string, code = `invalid_${field}`): void {
  const why = unstorable(value);
  if (why !== null) throw new ValidationError(code, `${field} ${why}`, field);
}

/** 1..max code points, storable: else 422 `invalid_<field>`. */
export function assertBoundedText(value: string, field: string, max: number, code = `invalid_${field}`): void {
  assertStorable(value, field, code);
  const n = value.length > max * 2 ? max + 1 : codePointLength(value);
  if (n === 0 || n > max) throw new ValidationError(code, `${field} must be 1 to ${max} characters`, field);
}
