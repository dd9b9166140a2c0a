import type { Refund as RefundMessage } from '../generated/chainpay/v1/refunds';
import type { Withdrawal } from '../../store/entities';
import { refundView } from '../../views/refund-view';

/** The refund row as the control plane shows it; the annotation fails the type-check when the message drifts from the view. */
export function toRefundMessage(row: Withdrawal, scope: { readonly livemode: boolean }): RefundMessage {
  const message: RefundMessage = refundView(row, scope);
  return message;
}
