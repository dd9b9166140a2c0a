import { parseAmount } from '../../domain/amount';
import { formatAmount, toDecimal } from '../../domain/decimal';
import { MalformedRequestError, ValidationError } from '../../domain/errors';
import { computeWithdrawalAmounts } from '../../domain/fees';
import { parseNetwork } from '../../domain/invoice-request';
import type { NetworkSettings } from '../../domain/networks';
import { BodyFields } from '../../domain/request-fields';
import { assertBoundedText } from '../../domain/text';
import { parseMemo } from '../../domain/withdrawal-memo';

/** The body of POST /v1/withdrawals, validated (all but the whitelist and the balance). */
export interface CreateWithdrawalInput {
  readonly network: NetworkSettings;
  /** As the merchant wrote it: the payout goes to exactly this form. */
  readonly address: string;
  readonly amount: string;
  readonly networkFee: string;
  readonly netPayout: string;
  readonly reference: string | null;
  /** TON only: the payout's comment as the request gave it; null: the whitelist entry's, if any. */
  readonly memo: string | null;
}

/** The fields of POST /v1/withdrawals. */
export const CREATE_WITHDRAWAL_FIELDS = new BodyFields(['network', 'address', 'amount', 'reference', 'memo']);

export const REFERENCE_MAX = 200;
const ADDRESS_MAX = 128;

/** Read first: a repeated reference returns the original before any other rule is applied. */
export function parseReference(body: Record<string, unknown>): string | null {
  const v = body.reference;
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new MalformedRequestError('reference must be a string', 'reference');
  assertBoundedText(v, 'reference', REFERENCE_MAX);
  return v;
}

function requiredString(body: Record<string, unknown>, field: string): string {
  const v = body[field];
  if (v === undefined || v === null || v === '') throw new MalformedRequestError(`${field} is required`, field, 'missing_field');
  if (typeof v !== 'string') throw new MalformedRequestError(`${field} must be a string`, field);
  return v;
}

/**
 * Rules in the order a merchant fixes them: only known fields (`unknown_field`), network known and active (`unknown_network`), address
 * format of that network (`invalid_address`), an address the chain can pay (the adapter's payeeRefusal code, e.g.
 * `address_off_curve` on SOLANA), a memo on TON only (`memo_not_supported`, `invalid_memo`), amount a decimal string at the token's precision,
 * at least `min_withdrawal` (`amount_below_minimum`) and above the fee (`amount_not_above_fee`).
 */
export function parseCreateWithdrawal(
  body: Record<string, unknown>,
  active: readonly NetworkSettings[],
  isValidAddress: (network: NetworkSettings, address: string) => boolean,
  payeeRefusal: (network: NetworkSettings, address: string) => { readonly code: string; readonly message: string } | null = () => null,
): CreateWithdrawalInput {
  CREATE_WITHDRAWAL_FIELDS.assertKnown(body);
  const reference = parseReference(body);
  if (body.network === undefined || body.network === null) throw new MalformedRequestError('network is required', 'network', 'missing_field');
  const network = parseNetwork(body.network, active);
  const address = requiredString(body, 'address');
  if (address.length > ADDRESS_MAX || !isValidAddress(network, address)) {
    throw new ValidationError('invalid_address', `address is not a valid ${network.code} address`, 'address');
  }
  const refusal = payeeRefusal(network, address);
  if (refusal) throw new ValidationError(refusal.code, refusal.message, 'address');
  const memo = parseMemo(body.memo, network.code);
  if (body.amount === undefined || body.amount === null) throw new MalformedRequestError('amount is required', 'amount', 'missing_field');
  const amount = formatAmount(parseAmount(body.amount, { field: 'amount', maxDecimals: network.tokenDecimals }));
  if (toDecimal(amount).lessThan(toDecimal(network.minWithdrawal))) {
    throw new ValidationError('amount_below_minimum', `amount is below the minimum withdrawal of ${network.minWithdrawal} on ${network.code}`, 'amount', { min_withdrawal: network.minWithdrawal });
  }
  const { networkFee, netPayout } = computeWithdrawalAmounts({ amount, withdrawalFee: network.withdrawalFee });
  return { network, address, amount, networkFee, netPayout, reference, memo };
}
