import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import { ValidationError } from '../domain/errors';
import { INVOICE_STATUSES } from '../domain/invoice-statuses';
import { Invoice, InvoicePayment } from '../store/entities';
import { startOfDayIn } from './zoned-date';

export interface InvoiceSearch {
  readonly status: string;
  readonly network: string;
  /** YYYY-MM-DD in `zone`, inclusive; '' for no bound. */
  readonly fromDate: string;
  readonly toDate: string;
  /** uuid, order_id, deposit address or payment tx hash (exact); '' for none. */
  readonly query: string;
  readonly limit: number;
  readonly offset: number;
}

export interface InvoiceSearchResult {
  readonly rows: Invoice[];
  readonly total: number;
  /** Invoices the filters leave out that are newer than the newest one matched. */
  readonly hiddenNewer: number;
  readonly newestHidden: string | null;
}

const MAX_LIMIT = 1000;
const NETWORK = /^[A-Z0-9]{2,16}$/;

/** One merchant's invoices, newest first, through the dashboard's filters: a read, always scoped by merchantId. */
export async function searchInvoices(em: EntityManager, merchantId: string, zone: string, s: InvoiceSearch): Promise<InvoiceSearchResult> {
  const where: Record<string, unknown> = {};
  if (s.status) {
    if (!(INVOICE_STATUSES as readonly string[]).includes(s.status)) throw new ValidationError('invalid_status', 'unknown status', 'status');
    where.status = s.status;
  }
  if (s.network) {
    if (!NETWORK.test(s.network)) throw new ValidationError('invalid_network', 'unknown network', 'network');
    where.network = s.network;
  }
  const created: Record<string, Date> = {};
  if (s.fromDate) created.$gte = day(s.fromDate, zone, 'from_date');
  if (s.toDate) created.$lt = new Date(day(s.toDate, zone, 'to_date').getTime() + 24 * 3600_000);
  if (Object.keys(created).length) where.createdAt = created;
  const q = s.query.trim();
  if (q) {
    const byHash = await em.find(InvoicePayment, { txHash: q }, { fields: ['invoiceUuid'], limit: 100 });
    const or: Record<string, unknown>[] = [{ orderId: q }, { address: q }, { txHash: q }];
    if (/^[0-9a-f-]{36}$/i.test(q)) or.push({ uuid: q.toLowerCase() });
    if (byHash.length) or.push({ uuid: { $in: byHash.map((p) => p.invoiceUuid) } });
    where.$or = or;
  }
  const scoped = { ...where, merchantId } as FilterQuery<Invoice>;
  const limit = Math.min(Math.max(s.limit || 50, 1), MAX_LIMIT);
  const [rows, total] = await em.findAndCount(Invoice, scoped, { orderBy: { createdAt: 'desc', uuid: 'desc' }, limit, offset: s.offset });
  let hiddenNewer = 0;
  let newestHidden: string | null = null;
  if (Object.keys(where).length) {
    // Newer than the newest match (or any, when nothing matches), and not matching the filters.
    const newest = rows[0]?.createdAt;
    const newer = { merchantId, ...(newest ? { createdAt: { $gt: newest } } : {}), $not: where } as FilterQuery<Invoice>;
    const [hidden, count] = await em.findAndCount(Invoice, newer, { orderBy: { createdAt: 'desc' }, limit: 1, fields: ['uuid'] });
    hiddenNewer = count;
    newestHidden = hidden[0]?.uuid ?? null;
  }
  return { rows, total, hiddenNewer, newestHidden };
}

function day(date: string, zone: string, field: string): Date {
  const at = startOfDayIn(date, zone);
  if (!at) throw new ValidationError('invalid_date', `${field} must be a date (YYYY-MM-DD)`, field);
  return at;
}
