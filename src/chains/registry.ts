import type { Clock } from '../domain/clock';
import { NETWORK_FACTS, type ChainFamily, type NetworkCode } from '../domain/networks';
import type { AddressCodec, KeyMaterial } from './codec';
import { createAddressCodec } from './codecs';
import { DevnetAdapter, type DevnetLogger } from './devnet/adapter';
import type { DevnetChainStore } from './devnet/store';
import { AdapterUnavailableError } from './errors';
import { evmLiveFactory } from './evm/live-factory';
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
  /** Per-network options of the live adapters (RPC URL, token id, ...), opaque here. */
  readonly live?: Partial<Record<NetworkCode, unknown>>;
}

export interface ChainAdapters {
  readonly adapters: Map<NetworkCode, ChainAdapter>;
  /** Only the networks running on devnet. */
  readonly devnet: Map<NetworkCode, DevnetControls>;
}

export interface LiveAdapterInput {
  readonly network: NetworkCode;
  readonly codec: AddressCodec;
  readonly keys: KeyMaterial;
  readonly clock: Clock;
  readonly options: unknown;
  readonly onRpc?: RpcObserver;
}

export type LiveAdapterFactory = (input: LiveAdapterInput) => ChainAdapter;

/**
 * SWITCH POINT: live chain families plug in here, one factory per family, e.g.
 *   evm: (input) => new EvmAdapter(input)   // BEP20, POLYGON, ARBITRUM
 * A family without a factory cannot run live: asking for it throws rather than silently
 * falling back to the simulated chain (devnet payments must never look real).
 */
const LIVE_FACTORIES: Partial<Record<ChainFamily, LiveAdapterFactory>> = { evm: evmLiveFactory };

/** One adapter per network: the devnet simulation, or the family's live adapter. Call init() on each. */
export function createChainAdapters(opts: ChainAdaptersOptions): ChainAdapters {
  const adapters = new Map<NetworkCode, ChainAdapter>();
  const devnet = new Map<NetworkCode, DevnetControls>();
  for (const network of opts.networks) {
    const codec = createAddressCodec(network, opts.keys);
    // Live when the whole daemon is, or when this network has live options (e.g. <CODE>_RPC_URL set).
    if (opts.mode === 'live' || opts.live?.[network] !== undefined) {
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
