import type { Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';

/** A time as the user's zone writes it (`YYYY-MM-DD HH:mm:ss`), '' when absent. */
export function zonedText(iso: string | undefined, zone: string): string {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  return new Intl.DateTimeFormat('sv-SE', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }).format(at);
}

/** RFC 4180 quoting; a cell a spreadsheet would run as a formula (=, +, -, @, tab, CR) is prefixed with '. */
function cell(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return `"${safe.replace(/"/g, '""')}"`;
}

/** The filtered invoices as CSV, times in the user's zone (named in the header). */
export function invoicesCsv(invoices: readonly Invoice[], zone: string): string {
  const header = ['uuid', 'order_id', 'status', 'network', 'amount', 'pay_amount', 'received_amount', 'currency', 'address', 'memo', 'tx_hash', `created_at (${zone})`, `paid_at (${zone})`];
  const rows = invoices.map((i) =>
    [
      i.uuid,
      i.order_id ?? '',
      i.status,
      i.network ?? '',
      i.amount,
      i.pay_amount,
      i.received_amount,
      i.currency,
      i.address ?? '',
      i.memo ?? '',
      i.tx_hash ?? '',
      zonedText(i.created_at, zone),
      zonedText(i.paid_at, zone),
    ]
      .map(cell)
      .join(','),
  );
  return `${[header.map(cell).join(','), ...rows].join('\r\n')}\r\n`;
}
