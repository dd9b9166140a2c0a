import type { EntityManager } from '@mikro-orm/postgresql';
import type { Query } from '../raw-sql';

export interface AllocatedAddress {
  readonly address: string;
  readonly normalized: string;
  readonly derivationIndex: number;
}

/** A range derived by two independent implementations, not yet compared (the derivation thread's answer). */
export interface DerivedTwice {
  readonly addresses: readonly string[];
  readonly check: readonly string[];
}

export interface AddressDeriver {
  deriveDepositAddress(index: number): string;
  /** Addresses number from .. from+count-1, in order; only where a range is cheaper (ChainAdapter.deriveDepositAddresses). */
  readonly deriveDepositAddresses?: (from: number, count: number) => string[];
  /** The same addresses by a second, independent implementation (ChainAdapter.crossCheckDepositAddresses). */
  crossCheckDepositAddresses(from: number, count: number): Promise<string[]>;
  /**
   * Both derivations of a range off the event loop (a worker thread: DerivationThread). Where
   * given, a refill derives each chunk with one call and no pacing.
   */
  readonly deriveDepositAddressesElsewhere?: (from: number, count: number) => Promise<DerivedTwice>;
  normalizeAddress(address: string): string;
}

/**
 * Two derivations of the deposit address at one index differ: the two implementations (or the
 * derivation thread and this one) disagree. Nothing of the chunk is stored, so the address is
 * never handed out; the pool keeper stops that network's refill (PoolKeeper).
 */
export class DerivedAddressMismatchError extends Error {
  override readonly name = 'DerivedAddressMismatchError';
  constructor(
    readonly network: string,
    readonly derivationIndex: number,
    /** What each side derived (undefined: it answered fewer addresses than asked). */
    readonly details: { readonly derived: string | undefined; readonly check: string | undefined; readonly checkedBy: 'second implementation' | 'daemon thread' },
  ) {
    super(`two derivations of ${network} deposit address ${derivationIndex} differ (${details.checkedBy}): ${details.derived} != ${details.check}`);
  }
}

/**
 * Addresses derived per step of a refill on the daemon thread (when the derivation thread failed),
 * between two calls of `pace`, where the deriver derives ranges (EVM, TRON). Each address costs
 * both implementations there (~0.3-0.5 ms together: docs/performance.md), so a step of 2 holds
 * the event loop about 1 ms, what the p99 of requests served during a refill sees. A deriver
 * without ranges (SOLANA) steps one address at a time.
 */
export const DERIVE_STEP = 2;

/**
 * A legacy row (migration 20261129120000) of the same index still holds the address on another
 * network: its invoice open (allocated) or its network change not cooled off yet. Such an index's
 * owner row is not handed out (nor counted free) until the legacy holder lets go. `$NOW` is the
 * allocation's time. Cheap: legacy rows sit in a partial index of their own (none on a new database).
 */
const heldByLegacy = (row: string, now: string): string =>
  `exists (select 1 from deposit_addresses l where l.legacy and l.index_space = ${row}.index_space and l.derivation_index = ${row}.derivation_index
     and (l.state = 'allocated' or (l.state = 'cooling' and l.available_at > ${now})))`;

// A due cooling address first (so cooled addresses are reused), else the lowest free one; each
// pick is one step down the (network, state, derivation_index) index, whatever the pool's history.
// Legacy rows are never picked, nor an owner row whose index a legacy row still holds.
const ALLOCATE_SQL = `update deposit_addresses set state = 'allocated', invoice_uuid = $1, allocated_at = $2, available_at = null
     where network = $3 and derivation_index = coalesce(
       (select derivation_index from deposit_addresses d where network = $3 and state = 'cooling' and available_at <= $2 and not legacy and not ${heldByLegacy('d', '$2')}
        order by derivation_index limit 1 for update of d skip locked),
       (select derivation_index from deposit_addresses d where network = $3 and state = 'free' and not legacy and not ${heldByLegacy('d', '$2')}
        order by derivation_index limit 1 for update of d skip locked))
     returning address, normalized, derivation_index`;

type AllocatedRow = { address: string; normalized: string; derivation_index: number };
const toAllocated = (row: AllocatedRow | undefined): AllocatedAddress | null => (row ? { address: row.address, normalized: row.normalized, derivationIndex: row.derivation_index } : null);

/**
 * The deposit-address pool of an address_pool network.
 * Allocation takes one free row with FOR UPDATE SKIP LOCKED, so concurrent invoices never wait on
 * each other and never share an address. Runs in the caller's transaction: a rolled-back invoice
 * gives its address back.
 */
export async function allocateAddress(em: EntityManager, network: string, invoiceUuid: string, now: Date): Promise<AllocatedAddress | null> {
  // knex placeholders are `?`, bound in the order they appear.
  const rows = await em.execute<AllocatedRow[]>(ALLOCATE_SQL.replace(/\$\d/g, '?'), [invoiceUuid, now, network, network, now, now, network, now]);
  return toAllocated(rows[0]);
}

/**
 * Reserves up to `count` available addresses (a due cooling one or a free one, lowest index first)
 * for this daemon's in-memory reserve (actors/invoices/address-reserve.ts), in one autocommit
 * statement. A reserved address belongs to no invoice: a payment to it is an unattributed deposit.
 * Only the active engine reserves (one per database, engine-lock.ts), and it returns every leftover
 * reservation to the pool when it starts (releaseReservations).
 */
const RESERVE_SQL = `with cooling as (
    select derivation_index from deposit_addresses d where network = $1 and state = 'cooling' and available_at <= $2 and not legacy and not ${heldByLegacy('d', '$2')}
     order by derivation_index limit $3 for update of d skip locked),
  free as (
    select derivation_index from deposit_addresses d where network = $1 and state = 'free' and not legacy and not ${heldByLegacy('d', '$2')}
     order by derivation_index limit $3 for update of d skip locked)
  update deposit_addresses set state = 'reserved', invoice_uuid = null, available_at = null, allocated_at = null
   where network = $1 and derivation_index in (select derivation_index from cooling union all select derivation_index from free)
   returning address, normalized, derivation_index`;

export async function reserveAddresses(q: Query, network: string, count: number, now: Date): Promise<AllocatedAddress[]> {
  const rows = await q<AllocatedRow>(RESERVE_SQL, [network, now, count], 'chainpay_reserve_addresses');
  return rows.map((r) => toAllocated(r)!).sort((a, b) => a.derivationIndex - b.derivationIndex);
}

/** At engine start: reservations of a previous (stopped or crashed) engine go back to the pool. */
export async function releaseReservations(em: EntityManager): Promise<number> {
  const rows = await em.execute<{ n: string }[]>(
    `with r as (update deposit_addresses set state = case when legacy then 'retired' else 'free' end where state = 'reserved' returning 1) select count(*)::text as n from r`,
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * The invoice moved to another network: its old address cools down for the late-payment window
 * (a buyer who already saw it may still pay there; such a payment is kept as unattributed), then
 * returns to the pool.
 */
export async function coolAddress(em: EntityManager, network: string, invoiceUuid: string, availableAt: Date): Promise<void> {
  await em.execute(`update deposit_addresses set state = 'cooling', available_at = ? where network = ? and invoice_uuid = ? and state = 'allocated'`, [availableAt, network, invoiceUuid]);
}

/**
 * The invoice comes back to a network it left: the address it had there, still cooling for it,
 * is its own again (so an invoice holds at most one address per network however often it
 * changes). Null when it never had one there, or the address went back to the pool meanwhile.
 * A legacy row only while it still holds its index (not yet cooled off): once due, its index's
 * owner row may belong to another invoice.
 */
export async function reclaimAddress(em: EntityManager, network: string, invoiceUuid: string, now: Date): Promise<AllocatedAddress | null> {
  const rows = await em.execute<AllocatedRow[]>(
    `update deposit_addresses set state = 'allocated', available_at = null, allocated_at = ?
      where network = ? and invoice_uuid = ? and state = 'cooling' and (not legacy or available_at > ?) returning address, normalized, derivation_index`,
    [now, network, invoiceUuid, now],
  );
  return toAllocated(rows[0]);
}

/** Back to the pool (a legacy row: retired): only called once the invoice's late-payment window is over. */
export async function releaseAddress(em: EntityManager, network: string, invoiceUuid: string): Promise<void> {
  await em.execute(`update deposit_addresses set state = case when legacy then 'retired' else 'free' end, invoice_uuid = null, available_at = null where network = ? and invoice_uuid = ?`, [
    network,
    invoiceUuid,
  ]);
}

/** Legacy rows left by a network change whose cooling is over hold nothing any more: retired (they never return to a pool). */
export async function retireCooledLegacy(em: EntityManager, now: Date): Promise<number> {
  const rows = await em.execute<{ n: string }[]>(
    `with r as (update deposit_addresses set state = 'retired', invoice_uuid = null, available_at = null where legacy and state = 'cooling' and available_at <= ? returning 1)
     select count(*)::text as n from r`,
    [now],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * Addresses per network and state for the pool metrics. A free row an allocation cannot take (a
 * legacy row of the same index still holds the address on another network) counts as `blocked`.
 */
export async function poolStateCounts(em: EntityManager, now: Date): Promise<Array<{ network: string; state: string; n: number }>> {
  const rows = await em.execute<{ network: string; state: string; n: string }[]>(
    `select network, case when state = 'free' and ${heldByLegacy('d', '?')} then 'blocked' else state end as state, count(*)::text as n
       from deposit_addresses d group by 1, 2`,
    [now],
  );
  return rows.map((r) => ({ network: r.network, state: r.state, n: Number(r.n) }));
}

/** Addresses of `network` an allocation can take now (free, not held on another network by a legacy row). */
export async function freeAddressCount(em: EntityManager, network: string, now: Date): Promise<number> {
  const rows = await em.execute<{ n: string }[]>(`select count(*)::text as n from deposit_addresses d where network = ? and state = 'free' and not legacy and not ${heldByLegacy('d', '?')}`, [
    network,
    now,
  ]);
  return Number(rows[0]?.n ?? 0);
}

/** Where a refill stores: the network's pool, in its index space (FamilyRegistry.indexSpace; the network itself when it shares none). */
export interface PoolPlace {
  readonly network: string;
  readonly indexSpace: string;
}

/**
 * Derives the next `count` addresses of the index space into the network's pool. Every address is
 * derived by both of the deriver's implementations and stored only where they agree: a difference
 * at any index stores nothing of the chunk and throws DerivedAddressMismatchError. Each index of
 * the space is stored for one network only: a clash (another network's refill, another daemon)
 * on (index_space, derivation_index) is skipped. Returns the normalized addresses added.
 * `pace` runs after each derivation step: up to DERIVE_STEP addresses where the deriver derives
 * ranges, else one (the caller yields to waiting requests there).
 */
export async function refillPool(em: EntityManager, place: PoolPlace, deriver: AddressDeriver, count: number, now: Date, pace?: () => Promise<void>): Promise<string[]> {
  const { network, indexSpace } = place;
  const rows = await em.execute<{ next: number | null }[]>(`select max(derivation_index) + 1 as next from deposit_addresses where index_space = ?`, [indexSpace]);
  const start = Number(rows[0]?.next ?? 0);
  const agreed: string[] = [];
  const compare = (from: number, n: number, derived: readonly string[], check: readonly string[], checkedBy: 'second implementation' | 'daemon thread'): void => {
    for (let k = 0; k < n; k++) {
      if (derived[k] === undefined || derived[k] !== check[k]) throw new DerivedAddressMismatchError(network, from + k, { derived: derived[k], check: check[k], checkedBy });
    }
  };
  if (deriver.deriveDepositAddressesElsewhere && count > 0) {
    const { addresses, check } = await deriver.deriveDepositAddressesElsewhere(start, count);
    compare(start, count, addresses, check, 'second implementation');
    // The thread must hold this thread's key material (the same keys, the same network): its last
    // address is derived here too, by the cheaper implementation, before any of the chunk is stored.
    const last = start + count - 1;
    compare(last, 1, [addresses[count - 1]!], await deriver.crossCheckDepositAddresses(last, 1), 'daemon thread');
    agreed.push(...addresses);
  } else {
    const step = deriver.deriveDepositAddresses ? DERIVE_STEP : 1;
    for (let from = start; from < start + count; from += step) {
      const n = Math.min(step, start + count - from);
      const addresses = deriver.deriveDepositAddresses?.(from, n) ?? [deriver.deriveDepositAddress(from)];
      compare(from, n, addresses, await deriver.crossCheckDepositAddresses(from, n), 'second implementation');
      agreed.push(...addresses);
      if (pace) await pace();
    }
  }
  if (agreed.length === 0) return [];
  const values: unknown[] = [];
  for (const [k, address] of agreed.entries()) values.push(network, indexSpace, start + k, address, deriver.normalizeAddress(address), now);
  const inserted = await em.execute<{ normalized: string }[]>(
    `insert into deposit_addresses (network, index_space, derivation_index, address, normalized, state, created_at)
     values ${agreed.map(() => `(?, ?, ?, ?, ?, 'free', ?)`).join(', ')} on conflict do nothing returning normalized`,
    values,
  );
  return inserted.map((r) => r.normalized);
}

/** Every address of an index space, on whichever network's pool (a watcher of any of its networks watches them all). */
export async function allPoolAddresses(em: EntityManager, indexSpace: string): Promise<string[]> {
  const rows = await em.execute<{ normalized: string }[]>(`select distinct normalized from deposit_addresses where index_space = ?`, [indexSpace]);
  return rows.map((r) => r.normalized);
}

/** An invoice holding an address on another network of its index space: who a wrong-network payment was probably meant for. */
export interface HolderElsewhere {
  readonly network: string;
  readonly invoiceUuid: string;
}

/**
 * The invoice holding `normalized` on a network of `indexSpace` other than `network` (allocated,
 * also in its late-payment window, or cooling after a network change); the latest allocated first.
 */
export async function holderElsewhere(em: EntityManager, indexSpace: string, network: string, normalized: string): Promise<HolderElsewhere | null> {
  const rows = await em.execute<{ network: string; invoice_uuid: string }[]>(
    `select network, invoice_uuid from deposit_addresses where index_space = ? and normalized = ? and network <> ? and state in ('allocated', 'cooling') and invoice_uuid is not null
      order by (state = 'allocated') desc, allocated_at desc nulls last limit 1`,
    [indexSpace, normalized, network],
  );
  const r = rows[0];
  return r ? { network: r.network, invoiceUuid: r.invoice_uuid } : null;
}

export async function addressOwner(em: EntityManager, network: string, normalized: string): Promise<{ state: string; invoiceUuid: string | null } | null> {
  const rows = await em.execute<{ state: string; invoice_uuid: string | null }[]>(`select state, invoice_uuid from deposit_addresses where network = ? and normalized = ?`, [network, normalized]);
  const r = rows[0];
  return r ? { state: r.state, invoiceUuid: r.invoice_uuid } : null;
}
