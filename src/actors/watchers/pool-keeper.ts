import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import { NETWORK_FACTS, type NetworkCode } from '../../domain/networks';
import type { ChainAdapter } from '../../chains/types';
import { DerivationThreadError } from '../../chains/derivation/derivation-thread';
import { builtInFamilies } from '../../chains/families';
import { DerivedAddressMismatchError, freeAddressCount, refillPool, retireCooledLegacy, type AddressDeriver, type DerivedTwice } from '../../store/repos/address-pool';
import { RefillPace } from './refill-pace';
import type { AddressPoolView } from './watcher-status';

/**
 * Addresses inserted per statement. Derivation is elliptic-curve work (two implementations per
 * address), so a refill on the daemon thread yields to the event loop after every step
 * (RefillPace); with the derivation thread, one chunk is one job.
 */
const REFILL_CHUNK = 50;

/**
 * Keeps each address pool above its low-water mark: derives a batch when free addresses drop
 * below `minFree`. New addresses are handed to the network's watcher before any invoice can get
 * them, so no payment to them is missed. One refill per network at a time.
 *
 * Every address is derived by two independent implementations and stored only where they agree
 * (refillPool). When they differ, that network's refill stops for good (until a restart): an
 * error log with both addresses, `halted` in the watcher view (`chainpay watchers`, ListWatchers)
 * and the chainpay_address_pool_halted metric; the other networks go on.
 */
export class PoolKeeper {
  private readonly running = new Map<NetworkCode, Promise<void>>();
  /**
   * Allocations to let pass before counting the free addresses again: half the margin above the
   * low-water mark seen at the last count (other daemons allocate from the same pool). Counting on
   * every allocation cost one query per invoice. An empty pool is still refilled at once (refillNow).
   */
  private readonly untilCount = new Map<NetworkCode, number>();
  /**
   * Networks whose refill derives flat out: the pool was below half its low-water mark when the
   * refill started, or a caller waits for an empty pool (refillNow). Otherwise a refill paces
   * itself to about half of the event loop: after each derivation step it waits as long as the
   * step took, so the requests served meanwhile keep their latency (at full speed a refill took the
   * daemon's whole core for seconds, which was the p99 of invoice creation, measured).
   */
  private readonly urgent = new Set<NetworkCode>();

  constructor(
    private readonly deps: {
      orm: MikroORM;
      logger: Logger;
      clock: Clock;
      adapters: ReadonlyMap<NetworkCode, ChainAdapter>;
      minFree: number;
      batch: number;
      /**
       * The network's index space (FamilyRegistry.indexSpace). Networks of one space (the EVM
       * family) draw their indexes from one sequence, each index stored for one network only, so
       * no address is ever in two networks' pools. Default: the built-in families' (builtInFamilies).
       */
      indexSpace?: (network: NetworkCode) => string;
      /** New addresses of `network`'s pool: every watcher of its index space must watch them. */
      onAdded: (network: NetworkCode, normalized: string[]) => void;
      /**
       * Derives ranges off the event loop by both implementations (DerivationThread; fails with
       * DerivationThreadError); without it, or when it fails, refills derive here, paced.
       */
      deriveElsewhere?: (network: NetworkCode, from: number, count: number) => Promise<DerivedTwice>;
    },
  ) {}

  /**
   * The refill running in each index space: refills of networks sharing one run one after the
   * other, so two of them never derive the same next indexes only for one to lose the insert.
   */
  private readonly spaceTail = new Map<string, Promise<void>>();

  /** Networks whose refill stopped: two derivations of an address differed. */
  private readonly halted = new Map<NetworkCode, { readonly error: DerivedAddressMismatchError; readonly at: Date }>();

  /** The pool's refill state as the watcher view shows it. */
  status(network: NetworkCode): AddressPoolView {
    if (NETWORK_FACTS[network].depositMode !== 'address_pool') return { state: 'none', error: null, haltedAt: null };
    const halt = this.halted.get(network);
    return halt ? { state: 'halted', error: halt.error.message, haltedAt: halt.at } : { state: 'ok', error: null, haltedAt: null };
  }

  /**
   * Refill when below the mark. Concurrent callers share the running refill (a burst of invoices
   * that found the pool empty triggers one batch, not one batch each).
   */
  ensure(network: NetworkCode, options: { urgent?: boolean } = {}): Promise<void> {
    // A halted pool derives nothing more: callers get what is left in it (PoolEmptyError once empty).
    if (NETWORK_FACTS[network].depositMode !== 'address_pool' || this.halted.has(network)) return Promise.resolve();
    if (options.urgent) this.urgent.add(network);
    const current = this.running.get(network);
    if (current) return current;
    const run = this.inSpace(network, () => this.refill(network)).finally(() => {
      this.running.delete(network);
      this.urgent.delete(network);
    });
    this.running.set(network, run);
    return run;
  }

  /** Runs `work` after the refills of `network`'s index space already queued. */
  private inSpace(network: NetworkCode, work: () => Promise<void>): Promise<void> {
    const space = this.spaceOf(network);
    const run = (this.spaceTail.get(space) ?? Promise.resolve()).then(work, work);
    const tail = run.catch(() => undefined);
    this.spaceTail.set(space, tail);
    void tail.then(() => {
      if (this.spaceTail.get(space) === tail) this.spaceTail.delete(space);
    });
    return run;
  }

  private spaceOf(network: NetworkCode): string {
    return this.deps.indexSpace?.(network) ?? builtInFamilies().indexSpace(network);
  }

  schedule(network: NetworkCode): void {
    const left = (this.untilCount.get(network) ?? 0) - 1;
    if (left > 0) {
      this.untilCount.set(network, left);
      return;
    }
    this.ensure(network).catch((err: unknown) => this.deps.logger.error({ err, network }, 'address pool refill failed'));
  }

  /**
   * One chunk through the derivation thread; null when it is to be derived here instead. The
   * thread is a speed-up, never a dependency: a chunk it fails to derive (it could not start, it
   * died) is derived here, paced, as without it. A mismatch is thrown (the refill stops).
   */
  private async refillThreaded(em: EntityManager, network: NetworkCode, threaded: AddressDeriver, count: number): Promise<string[] | null> {
    try {
      return await refillPool(em, { network, indexSpace: this.spaceOf(network) }, threaded, count, this.deps.clock.now());
    } catch (err) {
      if (err instanceof DerivationThreadError) {
        this.deps.logger.warn({ err, network }, 'address derivation thread failed; deriving on the daemon thread');
        return null;
      }
      throw err;
    }
  }

  private async refill(network: NetworkCode): Promise<void> {
    const adapter = this.deps.adapters.get(network);
    if (!adapter) return;
    const em = this.deps.orm.em.fork();
    const now = this.deps.clock.now();
    // Legacy rows (migration 20261129120000) whose network change cooled off hold nothing any more.
    const retired = await retireCooledLegacy(em, now);
    if (retired > 0) this.deps.logger.info({ network, retired }, 'legacy deposit-address rows retired');
    const free = await freeAddressCount(em, network, now);
    if (free >= this.deps.minFree) {
      this.untilCount.set(network, Math.floor((free - this.deps.minFree) / 2));
      return;
    }
    const count = Math.max(this.deps.batch, this.deps.minFree * 2 - free);
    const added: string[] = [];
    if (free < this.deps.minFree / 2) this.urgent.add(network);
    // Derivation is CPU work: paced per derivation step (RefillPace), so requests keep being served meanwhile.
    const pace = new RefillPace(() => this.urgent.has(network));
    const here = ownDeriver(adapter);
    const elsewhere = this.deps.deriveElsewhere;
    const threaded: AddressDeriver | null = elsewhere ? { ...here, deriveDepositAddressesElsewhere: (from, n) => elsewhere(network, from, n) } : null;
    try {
      for (let done = 0; done < count; done += REFILL_CHUNK) {
        const n = Math.min(REFILL_CHUNK, count - done);
        let chunk: string[] | null = null;
        if (threaded) chunk = await this.refillThreaded(em, network, threaded, n);
        chunk ??= await refillPool(em, { network, indexSpace: this.spaceOf(network) }, here, n, this.deps.clock.now(), pace.afterAddress);
        this.deps.onAdded(network, chunk);
        added.push(...chunk);
      }
    } catch (err) {
      if (!(err instanceof DerivedAddressMismatchError)) throw err;
      this.halt(network, err, added.length);
      return;
    }
    this.untilCount.set(network, Math.floor((free + added.length - this.deps.minFree) / 2));
    this.deps.logger.info({ network, added: added.length, freeBefore: free }, 'address pool refilled');
  }

  /** Stops the network's refill for the life of this daemon: the cause is a bug, bad memory or tampered code, never load. */
  private halt(network: NetworkCode, err: DerivedAddressMismatchError, added: number): void {
    this.halted.set(network, { error: err, at: this.deps.clock.now() });
    this.deps.logger.error(
      { alert: 'address_pool_halted', err, network, derivationIndex: err.derivationIndex, ...err.details, addedBeforeHalt: added },
      'two independent derivations of a deposit address differ: address pool refill stopped for this network; no address of that chunk was stored (restart the daemon once the cause is found)',
    );
  }
}

/**
 * The adapter as the deriver of its own pool: every address it yields comes from the adapter's
 * codec (here or on the derivation thread, with the same codecs), and both of its implementations
 * agreed on it, so it is normalized without validating it again (ChainAdapter.normalizeDerivedAddress: on EVM
 * that skips a keccak per address).
 */
function ownDeriver(adapter: ChainAdapter): AddressDeriver {
  return {
    deriveDepositAddress: (index) => adapter.deriveDepositAddress(index),
    crossCheckDepositAddresses: (from, count) => adapter.crossCheckDepositAddresses(from, count),
    ...(adapter.deriveDepositAddresses ? { deriveDepositAddresses: adapter.deriveDepositAddresses } : {}),
    normalizeAddress: adapter.normalizeDerivedAddress ?? ((address) => adapter.normalizeAddress(address)),
  };
}
