import type { Clock } from '../domain/clock';
import { NETWORK_FACTS, type ChainFamily, type NetworkCode } from '../domain/networks';
import type { KeyMaterial } from './codec';
import { createAddressCodec } from './codecs';
import { DevnetAdapter, type DevnetLogger } from './devnet/adapter';
import type { DevnetChainStore } from './devnet/store';
import { AdapterUnavailableError, ChainModeMixError } from './errors';
import { evmLiveFactory } from './evm/live-factory';
import { tronLiveFactory } from './tron/live-factory';
import type { ChainAdapter, DevnetControls, RpcObserver } from './types';

export interface ChainAdaptersOptions {
  /** Latency/outcome of every live RPC round trip (metrics). */
  readonly onRpc?: RpcObserver;
  readonly networks: readonly NetworkCode[];
  readonly mode: 'devnet' | 'live';
  readonly keys: KeyMaterial;
  readonly clock: Clock;
  readonly devnet: {
    /** Where devnet chains persist (the database: a standby continues them); in memory when absent. */
    readonly store?: DevnetChainStore;
    /** An older version's devnet journals (`<NETWORK>.jsonl`), imported into an empty store once. */
    readonly legacyJournalDir?: string;
    readonly logger?: DevnetLogger;
    readonly blockIntervalMs: number;
    readonly finalityDepth?: Partial<Record<NetworkCode, number>>;
  };
  /** Per-network options of the live adapters (RPC URL, token id, ...), opaque here; mode live only. */
  readonly live?: Partial<Record<NetworkCode, unknown>>;
}

export interface ChainAdapters {
  readonly adapters: Map<NetworkCode, ChainAdapter>;
  /** Only the networks running on devnet. */
  readonly devnet: Map<NetworkCode, DevnetControls>;
}

import type { LiveAdapterFactory } from './live-adapter';
export type { LiveAdapterFactory, LiveAdapterInput } from './live-adapter';

/**
 * SWITCH POINT: live chain families plug in here, one factory per family, e.g.
 *   evm: (input) => new EvmAdapter(input)   // BEP20, POLYGON, ARBITRUM
 * A family without a factory cannot run live: asking for it throws rather than silently
 * falling back to the simulated chain (devnet payments must never look real).
 */
const LIVE_FACTORIES: Partial<Record<ChainFamily, LiveAdapterFactory>> = { evm: evmLiveFactory, tron: tronLiveFactory };

/** Whether `network` can run on its real chain in this version (its family has a live adapter). */
export function hasLiveAdapter(network: NetworkCode): boolean {
  return LIVE_FACTORIES[NETWORK_FACTS[network].family] !== undefined;
}

/**
 * One adapter per network: the devnet simulation of each (mode devnet), or each network's live
 * adapter (mode live). Call init() on each.
 */
export function createChainAdapters(opts: ChainAdaptersOptions): ChainAdapters {
  const adapters = new Map<NetworkCode, ChainAdapter>();
  const devnet = new Map<NetworkCode, DevnetControls>();
  for (const network of opts.networks) {
    const codec = createAddressCodec(network, opts.keys);
    // The mode is the whole daemon's: devnet and live never mix (DESIGN.md, Embedded defaults).
    if (opts.mode === 'devnet' && opts.live?.[network] !== undefined) throw new ChainModeMixError(network);
    if (opts.mode === 'live') {
      const factory = LIVE_FACTORIES[NETWORK_FACTS[network].family];
      if (!factory) throw new AdapterUnavailableError(network, 'live');
      adapters.set(network, factory({ network, codec, keys: opts.keys, clock: opts.clock, options: opts.live?.[network], onRpc: opts.onRpc }));
      continue;
    }
    const adapter = new DevnetAdapter({
      network,
      codec,
      clock: opts.clock,
      store: opts.devnet.store,
      legacyJournalDir: opts.devnet.legacyJournalDir,
      logger: opts.devnet.logger,
      blockIntervalMs: opts.devnet.blockIntervalMs,
      finalityDepth: opts.devnet.finalityDepth?.[network],
    });
    adapters.set(network, adapter);
    devnet.set(network, adapter);
  }
  return { adapters, devnet };
}
