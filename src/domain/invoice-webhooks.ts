import type { InvoiceMachineContext } from './invoice-context';

/** DESIGN.md "Webhooks": invoice event types. */
export type InvoiceWebhookType =
  | 'invoice.confirming'
  | 'invoice.partially_paid'
  | 'invoice.paid'
  | 'invoice.overpaid'
  | 'invoice.underpaid'
  | 'invoice.expired'
  | 'invoice.canceled'
  | 'invoice.paid_late'
  | 'invoice.reverted';

/**
 * The webhooks one step of the invoice actor calls for, in delivery order: `invoice.reverted`
 * when a payment vanished, then `invoice.<status>` on a status change (none for going back to
 * pending: the reverted event says it), then `invoice.paid_late` when late money changed the outcome.
 */
export function invoiceWebhookEvents(before: InvoiceMachineContext, after: InvoiceMachineContext): InvoiceWebhookType[] {
  const events: InvoiceWebhookType[] = [];
  const wasLive = new Set(before.payments.filter((p) => p.state !== 'reverted').map((p) => p.key));
  if (after.payments.some((p) => p.state === 'reverted' && wasLive.has(p.key))) events.push('invoice.reverted');
  if (after.status !== before.status && after.status !== 'pending') events.push(`invoice.${after.status}`);
  if (after.paidLate && !before.paidLate) events.push('invoice.paid_late');
  return events;
}
