import type { Invoice as InvoiceMessage } from '../generated/chainpay/v1/invoices';
import type { Invoice, InvoicePayment } from '../../store/entities';
import { invoiceView, type ViewScope } from '../../views/invoice-view';

/**
 * The row (the truth) as the control plane shows it. The plain view is the message's shape; the
 * annotation makes the type-check fail here when the generated message gains or changes a field.
 */
export async function toInvoiceMessage(row: Invoice, payments: readonly InvoicePayment[], scope: ViewScope, options: { keepQr?: boolean; drawQr?: boolean } = {}): Promise<InvoiceMessage> {
  const message: InvoiceMessage = await invoiceView(row, payments, scope, options);
  return message;
}
