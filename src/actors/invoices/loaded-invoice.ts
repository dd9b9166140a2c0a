import type { Invoice, InvoicePayment } from '../../store/entities';

/** An invoice's row and its payments, as one read or commit loaded them (the truth, not the actor). */
export interface LoadedInvoice {
  readonly row: Invoice;
  readonly payments: InvoicePayment[];
}
