import type { Clock } from '../domain/clock';
import type { NetworkCode } from '../domain/networks';
import type { KeyMaterial } from './codec';
import { DevnetAdapter, type DevnetLogger } from './devnet/adapter';
import type { DevnetChainStore } from './devnet/store';
import { AdapterUnavailableError, ChainModeMixError } from './errors';
import { builtInFamilies, type FamilyRegistry } from './families';
import type { LiveLogger } from './live-adapter';
import type { ChainAdapter, DevnetControls, RpcObserver } from './types';

export type { LiveAdapterFactory, LiveAdapterInput } from './live-adapter';

export interface ChainAdaptersOptions {
  /** Latency/outcome of every live RPC round trip (metrics). */
  readonly onRpc?: RpcObserver;
  /** The live families' structured logs. */
  readonly logger?: LiveLogger;
  readonly networks: readonly NetworkCode[];
  readonly mode: 'devnet' | 'live';
  readonly keys: KeyMaterial;
  readonly clock: Clock;
  /** Which family runs each network (default: the built-in families, families.ts). */
  readonly families?: FamilyRegistry;
  readonly devnet: {
    /** Where devnet chains persist (the database: a standby continues them); in memory when absent. */
    readonly store?: DevnetChainStore;
    /** An older version's devnet journals (`<NETWORK>.jsonl`), imported into an empty store once. */
    readonly legacyJournalDir?: string;
    readonly logger?: DevnetLogger;
    readonly blockIntervalMs: number;
    /** DEVNET_HOT_WALLET_USDT: what each devnet hot wallet starts with; absent or null: unlimited. */
    readonly hotWalletUsdt?: string | null;
    readonly finalityDepth?: Partial<Record<NetworkCode, number>>;
  };
  /** Per-network options of the live adapters (LiveSettings.options, from the family's readLive), opaque here; mode live only. */
  readonly live?: Partial<Record<NetworkCode, unknown>>;
}

export interface ChainAdapters {
  readonly adapters: Map<NetworkCode, ChainAdapter>;
  /** Only the networks running on devnet. */
  readonly devnet: Map<NetworkCode, DevnetControls>;
}

/**
 * Whether `network` can run on its real chain in this version (its family has a live factory).
 * A family without one cannot run live: asking for it throws rather than silently falling back to
 * the simulated chain (devnet payments must never look real).
 */
export function hasLiveAdapter(network: NetworkCode, families: FamilyRegistry = builtInFamilies()): boolean {
  return families.of(network).live !== undefined;
}

/**
 * One adapter per network, built by the network's family: its devnet simulation (mode devnet), or
 * its live adapter (mode live). Call init() on each.
 */
export function createChainAdapters(opts: ChainAdaptersOptions): ChainAdapters {
  const families = opts.families ?? builtInFamilies();
  const adapters = new Map<NetworkCode, ChainAdapter>();
  const devnet = new Map<NetworkCode, DevnetControls>();
  for (const network of opts.networks) {
    const family = families.of(network);
    const codec = family.codec(opts.keys);
    // The mode is the whole daemon's: devnet and live never mix (DESIGN.md, Embedded defaults).
    if (opts.mode === 'devnet' && opts.live?.[network] !== undefined) throw new ChainModeMixError(network);
    if (opts.mode === 'live') {
      if (!family.live) throw new AdapterUnavailableError(network, 'live');
      adapters.set(network, family.live({ network, codec, keys: opts.keys, clock: opts.clock, options: opts.live?.[network], onRpc: opts.onRpc, logger: opts.logger }));
      continue;
    }
    const adapter = (family.devnet ?? ((o) => new DevnetAdapter(o)))({
      network,
      codec,
      clock: opts.clock,
      store: opts.devnet.store,
      legacyJournalDir: opts.devnet.legacyJournalDir,
      logger: opts.devnet.logger,
      blockIntervalMs: opts.devnet.blockIntervalMs,
      hotWalletUsdt: opts.devnet.hotWalletUsdt ?? null,
      finalityDepth: opts.devnet.finalityDepth?.[network],
    });
    adapters.set(network, adapter);
    devnet.set(network, adapter);
  }
  return { adapters, devnet };
}
