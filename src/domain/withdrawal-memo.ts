import { MalformedRequestError, ValidationError } from './errors';
import { NETWORK_FACTS, type NetworkCode } from './networks';
import { assertBoundedText } from './text';

/**
 * A withdrawal's memo (issue 45 item 5): the text comment a TON payout carries in its jetton
 * transfer's forward_payload, which exchanges use to credit a deposit to one of their users. Beyond
 * the spec. Only networks whose token transfers carry a comment take one (TON); elsewhere it is
 * refused (422 `memo_not_supported`) rather than silently dropped, since a payee who needs it would
 * lose the money.
 */
export const MEMO_MAX = 120;

/** Control characters (C0, DEL, C1), line and paragraph separators: an exchange would not match them, a log would break on them. */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;

export function memoSupported(network: NetworkCode): boolean {
  return NETWORK_FACTS[network].family === 'ton';
}

/**
 * The memo of a request body field (`memo`), or null when absent: a string of 1..MEMO_MAX code
 * points without control characters (422 `invalid_memo`), on a network that carries one (422
 * `memo_not_supported`). Not trimmed: what the merchant wrote is what the payee's exchange reads.
 */
export function parseMemo(value: unknown, network: NetworkCode, field = 'memo'): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw new MalformedRequestError(`${field} must be a string`, field);
  if (!memoSupported(network)) throw new ValidationError('memo_not_supported', `${network} payouts carry no memo: ${field} is accepted on TON only`, field, { network });
  assertBoundedText(value, field, MEMO_MAX, 'invalid_memo');
  if (CONTROL.test(value)) throw new ValidationError('invalid_memo', `${field} must not contain control characters`, field);
  return value;
}
