/** The invoice statuses themselves (no rules): the context and the rules both name them. */
/** DESIGN.md "Invoice statuses". */
export const INVOICE_STATUSES = ['pending', 'confirming', 'partially_paid', 'paid', 'overpaid', 'underpaid', 'expired', 'canceled'] as const;
export type InvoiceStatus = (typeof INVOICE_STATUSES)[number];

/**
 * The outcomes: an invoice in one of these has ended (only late money can still move it).
 * `canceled` is `expired` asked for early by the merchant: late money moves it the same way.
 */
export const TERMINAL_INVOICE_STATUSES = ['paid', 'overpaid', 'underpaid', 'expired', 'canceled'] as const;
export type TerminalInvoiceStatus = (typeof TERMINAL_INVOICE_STATUSES)[number];

export function isTerminalInvoiceStatus(status: InvoiceStatus): status is TerminalInvoiceStatus {
  return (TERMINAL_INVOICE_STATUSES as readonly string[]).includes(status);
}
