import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import { NETWORK_FACTS, type NetworkCode } from '../../domain/networks';
import type { ChainAdapter } from '../../chains/types';
import { DerivationThreadError } from '../../chains/derivation/derivation-thread';
import { DerivedAddressMismatchError, freeAddressCount, refillPool, type AddressDeriver } from '../../store/repos/address-pool';
import { RefillPace } from './refill-pace';

/**
 * Keeps each address pool above its low-water mark: derives a batch when free addresses drop
 * below `minFree`. New addresses are handed to the network's watcher before any invoice can get
 * them, so no payment to them is missed. One refill per network at a time.
 */
/**
 * Addresses inserted per statement. Derivation is pure-JS elliptic-curve work (~0.13 ms an address
 * on EVM/TRON, derived in ranges of DERIVE_STEP), so the refill yields to the event loop after every
 * step (RefillPace): a chunk derived in one go held requests up ~30 ms (50 addresses at the old
 * ~0.5 ms each), which showed in the p99 of invoice creation.
 */
const REFILL_CHUNK = 50;

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
      onAdded: (network: NetworkCode, normalized: string[]) => void;
      /** Derives ranges off the event loop (DerivationThread; fails with DerivationThreadError); without it, refills derive here, paced. */
      deriveElsewhere?: (network: NetworkCode, from: number, count: number) => Promise<string[]>;
    },
  ) {}

  /** Networks whose thread-derived addresses once differed from the daemon thread's: never threaded again. */
  private readonly threadRefused = new Set<NetworkCode>();

  /**
   * Refill when below the mark. Concurrent callers share the running refill (a burst of invoices
   * that found the pool empty triggers one batch, not one batch each).
   */
  ensure(network: NetworkCode, options: { urgent?: boolean } = {}): Promise<void> {
    if (NETWORK_FACTS[network].depositMode !== 'address_pool') return Promise.resolve();
    if (options.urgent) this.urgent.add(network);
    const current = this.running.get(network);
    if (current) return current;
    const run = this.refill(network).finally(() => {
      this.running.delete(network);
      this.urgent.delete(network);
    });
    this.running.set(network, run);
    return run;
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
   * died) is derived here, paced, as without it. A chunk whose addresses differ from this thread's
   * (refillPool checks) stores nothing, and that network is derived here from then on.
   */
  private async refillThreaded(em: EntityManager, network: NetworkCode, threaded: AddressDeriver, count: number): Promise<string[] | null> {
    try {
      return await refillPool(em, network, threaded, count, this.deps.clock.now());
    } catch (err) {
      if (err instanceof DerivedAddressMismatchError) {
        this.threadRefused.add(network);
        this.deps.logger.error({ err, network }, 'the derivation thread derived other addresses than the daemon thread; deriving this network on the daemon thread from now on');
        return null;
      }
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
    const free = await freeAddressCount(em, network);
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
    for (let done = 0; done < count; done += REFILL_CHUNK) {
      const n = Math.min(REFILL_CHUNK, count - done);
      let chunk: string[] | null = null;
      if (threaded && !this.threadRefused.has(network)) chunk = await this.refillThreaded(em, network, threaded, n);
      chunk ??= await refillPool(em, network, here, n, this.deps.clock.now(), pace.afterAddress);
      this.deps.onAdded(network, chunk);
      added.push(...chunk);
    }
    this.untilCount.set(network, Math.floor((free + added.length - this.deps.minFree) / 2));
    this.deps.logger.info({ network, added: added.length, freeBefore: free }, 'address pool refilled');
  }
}

/**
 * The adapter as the deriver of its own pool: every address it yields comes from the adapter's
 * codec (here or on the derivation thread, whose chunks refillPool checks against this thread's),
 * so it is normalized without validating it again (ChainAdapter.normalizeDerivedAddress: on EVM
 * that skips a keccak per address).
 */
function ownDeriver(adapter: ChainAdapter): AddressDeriver {
  return {
    deriveDepositAddress: (index) => adapter.deriveDepositAddress(index),
    ...(adapter.deriveDepositAddresses ? { deriveDepositAddresses: adapter.deriveDepositAddresses } : {}),
    normalizeAddress: adapter.normalizeDerivedAddress ?? ((address) => adapter.normalizeAddress(address)),
  };
}
