import { ceilTo, formatAmount, maxAmount, toDecimal, type AmountLike } from './decimal';
import { ValidationError } from './errors';

export type FeePayer = 'buyer' | 'merchant';

export interface InvoiceAmountsInput {
  readonly amount: AmountLike;
  readonly feePayer: FeePayer;
  /** The merchant's platform fee in percent, e.g. "1" for 1 %. */
  readonly platformFeePercent: string;
  /** The network's buyer_network_fee; null while no network is chosen. */
  readonly buyerNetworkFee: string | null;
  /** USDT decimals of the chosen network; null while no network is chosen. */
  readonly tokenDecimals: number | null;
}

/** Canonical decimal strings, as the Invoice resource shows them. */
export interface InvoiceAmounts {
  readonly platformFee: string;
  readonly networkFee: string;
  readonly payAmount: string;
  readonly merchantNet: string;
}

/** Precision of pay_amount while no network is chosen: the invoice amount's own (8 decimals). */
export const UNSET_NETWORK_DECIMALS = 8;

/**
 * The fee rule of DESIGN.md "Money". pay_amount is rounded UP to the token's precision so it is
 * payable; the rounding difference belongs to platform_fee. Invariants, to the last digit:
 * buyer pays: pay_amount = amount + platform_fee + network_fee and merchant_net = amount;
 * merchant pays: merchant_net = max(0, pay_amount − platform_fee − network_fee).
 */
export function computeInvoiceAmounts(input: InvoiceAmountsInput): InvoiceAmounts {
  const amount = toDecimal(input.amount);
  const percent = toDecimal(input.platformFeePercent);
  if (amount.isNegative() || percent.isNegative()) throw new RangeError('amount and fee percent must not be negative');
  const networkFee = toDecimal(input.buyerNetworkFee ?? '0');
  const decimals = input.tokenDecimals ?? UNSET_NETWORK_DECIMALS;
  const rawPlatformFee = amount.times(percent).dividedBy(100);

  if (input.feePayer === 'buyer') {
    const payAmount = ceilTo(amount.plus(rawPlatformFee).plus(networkFee), decimals);
    return {
      platformFee: formatAmount(payAmount.minus(amount).minus(networkFee)),
      networkFee: formatAmount(networkFee),
      payAmount: formatAmount(payAmount),
      merchantNet: formatAmount(amount),
    };
  }
  const payAmount = ceilTo(amount, decimals);
  const platformFee = rawPlatformFee.plus(payAmount.minus(amount));
  return {
    platformFee: formatAmount(platformFee),
    networkFee: formatAmount(networkFee),
    payAmount: formatAmount(payAmount),
    merchantNet: formatAmount(maxAmount('0', payAmount.minus(platformFee).minus(networkFee))),
  };
}

/**
 * What the ledger credits the merchant for a settled invoice: received − platform_fee − network_fee,
 * never below 0. For an exact payment this equals merchant_net.
 */
export function settlementCredit(input: { received: AmountLike; platformFee: AmountLike; networkFee: AmountLike }): string {
  const credit = toDecimal(input.received).minus(toDecimal(input.platformFee)).minus(toDecimal(input.networkFee));
  return formatAmount(maxAmount('0', credit));
}

export interface WithdrawalAmounts {
  readonly networkFee: string;
  readonly netPayout: string;
}

/** net_payout = amount − withdrawal_fee, exact. Refused (`amount_not_above_fee`) unless amount > fee. */
export function computeWithdrawalAmounts(input: { amount: AmountLike; withdrawalFee: AmountLike }): WithdrawalAmounts {
  const amount = toDecimal(input.amount);
  const fee = toDecimal(input.withdrawalFee);
  if (amount.lessThanOrEqualTo(fee)) {
    throw new ValidationError('amount_not_above_fee', 'amount must be greater than the network withdrawal fee', 'amount', {
      withdrawal_fee: formatAmount(fee),
    });
  }
  return { networkFee: formatAmount(fee), netPayout: formatAmount(amount.minus(fee)) };
}
