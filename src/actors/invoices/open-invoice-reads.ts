import type { LoadedInvoice } from './loaded-invoice';

/** How many open invoices' committed rows are kept (least recently read dropped first). */
export const OPEN_INVOICE_READS_MAX = 10_000;

/** A read in flight; `stale` once a commit of its invoice happened meanwhile. */
interface Ticket {
  stale: boolean;
}

/**
 * The committed row and payments of OPEN invoices, as the last read found them, so that polling
 * an invoice (GET /v1/invoices/{uuid}, the checkout page) does not cost a database read each time.
 *
 * Invariants:
 * - Only an invoice whose actor lives in this daemon is kept: every write of such an invoice's
 *   rows is a commit of that actor (InvoiceActors.commit), and each commit calls `invalidate`
 *   right after its transaction, committed or not. Only one daemon is the active engine.
 * - A read that was in flight when its invoice committed is not kept (it may hold the state from
 *   before the commit): the tickets below.
 * - Entries are treated as read-only by every caller.
 */
export class OpenInvoiceReads {
  private readonly rows = new Map<string, LoadedInvoice>();
  private readonly reading = new Map<string, Set<Ticket>>();

  constructor(
    private readonly isOpenHere: (uuid: string) => boolean,
    private readonly max = OPEN_INVOICE_READS_MAX,
  ) {}

  /** The kept rows of `uuid`, else `load()`'s (kept when the invoice is open here and nothing committed meanwhile). */
  async read(uuid: string, load: () => Promise<LoadedInvoice | null>): Promise<LoadedInvoice | null> {
    const kept = this.rows.get(uuid);
    if (kept) {
      // Most recently read last: Map iteration order is insertion order.
      this.rows.delete(uuid);
      this.rows.set(uuid, kept);
      return kept;
    }
    const ticket: Ticket = { stale: false };
    let tickets = this.reading.get(uuid);
    if (!tickets) this.reading.set(uuid, (tickets = new Set()));
    tickets.add(ticket);
    try {
      const loaded = await load();
      if (loaded?.row.open && !ticket.stale && this.isOpenHere(uuid)) this.keep(uuid, loaded);
      return loaded;
    } finally {
      tickets.delete(ticket);
      if (tickets.size === 0) this.reading.delete(uuid);
    }
  }

  /** The invoice's rows changed (or may have): forget them, and do not keep reads in flight. */
  invalidate(uuid: string): void {
    this.rows.delete(uuid);
    for (const ticket of this.reading.get(uuid) ?? []) ticket.stale = true;
  }

  size(): number {
    return this.rows.size;
  }

  private keep(uuid: string, loaded: LoadedInvoice): void {
    this.rows.set(uuid, loaded);
    if (this.rows.size > this.max) this.rows.delete(this.rows.keys().next().value!);
  }
}
