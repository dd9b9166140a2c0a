import type { Clock } from '../../domain/clock';
import type { NetworkCode } from '../../domain/networks';
import type { Query } from '../../store/raw-sql';
import { reserveAddresses, type AllocatedAddress } from '../../store/repos/address-pool';

/**
 * Deposit addresses this daemon has reserved from the pool (state `reserved`, one statement per
 * batch) and hands out to new invoices, so that creating an invoice is one statement: the row and
 * the allocation of its reserved address (invoice-rows.ts insertInvoiceOnReserved).
 *
 * Invariants: an address is in at most one list here (JavaScript runs one take at a time); the
 * database still decides, since the insert only allocates an address that is `reserved`, so no two
 * invoices can ever get the same one. An address whose insert failed (order_id clash, connection
 * error) is still reserved and goes back to the list. Reservations left by a stopped or crashed
 * engine return to the pool when the next engine starts (releaseReservations).
 */
export class AddressReserve {
  private readonly lists = new Map<NetworkCode, AllocatedAddress[]>();
  private readonly filling = new Map<NetworkCode, Promise<number>>();

  constructor(private readonly deps: { query: Query; clock: Clock; batch: number }) {}

  /** The next reserved address, or null when the pool has none available (refill, then retry). */
  async take(network: NetworkCode): Promise<AllocatedAddress | null> {
    for (;;) {
      const list = this.lists.get(network);
      const next = list?.shift();
      if (next) {
        // Below half a batch, the next batch is reserved ahead, in the background: waiting until the
        // list is empty stalled every new invoice for a reservation round trip (its commit's WAL
        // flush included) once per batch, which showed as idle CPU at full load. Its failure is
        // dropped here: nobody waits for it, and the take that finds the list empty fills again
        // and meets the error itself.
        if (list!.length < this.deps.batch / 2 && !this.filling.has(network)) this.fill(network).catch(() => undefined);
        return next;
      }
      // Concurrent takers share one reservation round trip; a batch that came back empty means the pool is dry.
      if ((await this.fill(network)) === 0) return this.lists.get(network)?.shift() ?? null;
    }
  }

  /** An address whose invoice was not written: still reserved in the database, usable again. */
  giveBack(network: NetworkCode, address: AllocatedAddress): void {
    const list = this.lists.get(network) ?? [];
    list.unshift(address);
    this.lists.set(network, list);
  }

  /** How many addresses are held here (reserved in the database, not yet allocated). */
  size(network: NetworkCode): number {
    return this.lists.get(network)?.length ?? 0;
  }

  private fill(network: NetworkCode): Promise<number> {
    let running = this.filling.get(network);
    if (!running) {
      running = reserveAddresses(this.deps.query, network, this.deps.batch, this.deps.clock.now())
        .then((got) => {
          const list = this.lists.get(network) ?? [];
          list.push(...got);
          this.lists.set(network, list);
          return got.length;
        })
        .finally(() => this.filling.delete(network));
      this.filling.set(network, running);
    }
    return running;
  }
}
