import { Dec, formatAmount } from '../../domain/decimal';
import { settlementCredit } from '../../domain/fees';
import type { LedgerLine } from '../../store/repos/ledger';
import { merchantAvailable } from '../../store/repos/ledger';

interface Split {
  readonly received: string;
  readonly merchant: string;
  readonly platform: string;
  readonly network: string;
}

/** How a confirmed received amount divides: the merchant's credit, then the platform fee, then the network fee. */
export function splitReceived(received: string, fees: { platformFee: string; networkFee: string }): Split {
  const merchant = settlementCredit({ received, platformFee: fees.platformFee, networkFee: fees.networkFee });
  const feesTaken = new Dec(received).minus(merchant);
  const platform = Dec.min(feesTaken, fees.platformFee);
  return { received, merchant, platform: formatAmount(platform), network: formatAmount(feesTaken.minus(platform)) };
}

/**
 * The ledger lines that move the books from `booked` to `confirmed` received money of one invoice.
 * Target-based, so a retry or a replay books only the difference (and nothing when there is none).
 */
export function settlementLines(input: { merchantId: string; network: string; booked: string; confirmed: string; platformFee: string; networkFee: string }): LedgerLine[] {
  const before = splitReceived(input.booked, input);
  const after = splitReceived(input.confirmed, input);
  const delta = (a: string, b: string): string => formatAmount(new Dec(b).minus(a));
  return [
    { account: `chain:${input.network}:deposits`, amount: formatAmount(new Dec(before.received).minus(after.received)) },
    { account: merchantAvailable(input.merchantId), amount: delta(before.merchant, after.merchant) },
    { account: 'platform:fees', amount: delta(before.platform, after.platform) },
    { account: `network:${input.network}:fees`, amount: delta(before.network, after.network) },
  ];
}
