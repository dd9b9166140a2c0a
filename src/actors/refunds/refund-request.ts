import { parseAmount } from '../../domain/amount';
import { formatAmount } from '../../domain/decimal';
import { MalformedRequestError, ValidationError } from '../../domain/errors';
import { BodyFields } from '../../domain/request-fields';
import { assertBoundedText } from '../../domain/text';

/** Who pays the network's withdrawal fee: deducted from what the buyer receives (default), or the merchant. */
export type RefundFeePayer = 'deducted' | 'merchant';

/** The body of POST /v1/invoices/{uuid}/refunds, its shape checked (the network's rules come later). */
export interface RefundBody {
  readonly amount: string | null;
  readonly address: string;
  readonly memo: unknown;
  readonly reason: string | null;
  readonly reference: string | null;
  readonly fee: RefundFeePayer;
}

export const CREATE_REFUND_FIELDS = new BodyFields(['amount', 'address', 'memo', 'reason', 'reference', 'fee']);
export const REFUND_REASON_MAX = 500;
const REFERENCE_MAX = 200;

const optionalString = (body: Record<string, unknown>, field: string, max: number): string | null => {
  const v = body[field];
  if (v === undefined || v === null) return null;
  if (typeof v !== 'string') throw new MalformedRequestError(`${field} must be a string`, field);
  assertBoundedText(v, field, max);
  return v;
};

export function parseRefundReference(body: Record<string, unknown>): string | null {
  return optionalString(body, 'reference', REFERENCE_MAX);
}

/**
 * Shape only, in order: unknown fields (400), address required (400 `missing_field`: the claim
 * link for a refund without an address is not built yet), amount a decimal string at `decimals`,
 * fee `deducted` or `merchant` (422 `invalid_fee`), reason at most 500 characters.
 */
export function parseRefundBody(body: Record<string, unknown>, decimals: number): RefundBody {
  CREATE_REFUND_FIELDS.assertKnown(body);
  const reference = parseRefundReference(body);
  const address = body.address;
  if (address === undefined || address === null || address === '') throw new MalformedRequestError('address is required', 'address', 'missing_field');
  if (typeof address !== 'string') throw new MalformedRequestError('address must be a string', 'address');
  const amount = body.amount === undefined || body.amount === null ? null : formatAmount(parseAmount(body.amount, { field: 'amount', maxDecimals: decimals }));
  const fee = body.fee ?? 'deducted';
  if (fee !== 'deducted' && fee !== 'merchant') throw new ValidationError('invalid_fee', 'fee is "deducted" or "merchant"', 'fee');
  const reason = optionalString(body, 'reason', REFUND_REASON_MAX);
  return { amount, address, memo: body.memo ?? null, reason, reference, fee };
}
