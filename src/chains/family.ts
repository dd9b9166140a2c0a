import type { NetworkCode } from '../domain/networks';
import type { AddressCodec, KeyMaterial } from './codec';
import type { DevnetAdapterOptions } from './devnet/adapter';
import type { Secp256k1Addon } from './keys/secp256k1-addon';
import type { LiveAdapterFactory } from './live-adapter';
import type { ChainAdapter, DevnetControls } from './types';

/**
 * The one definition a chain family gives the daemon (docs/chains.md, Adding a family). Everything
 * family-specific sits behind it: the environment variables it reads, its address codec (format,
 * validation, normalization: what the watched sets match), its live adapter and, optionally, its
 * simulated one. The daemon, the configuration and the registry only iterate over definitions.
 */
export interface ChainFamilyDefinition {
  /** Lower-case id, e.g. `evm`; unique in a registry. */
  readonly id: string;
  /** The networks of the REST contract (domain/networks.ts) this family runs. */
  readonly networks: readonly NetworkCode[];
  /**
   * True when every network of the family derives the same deposit address at a given index (one
   * key, one path: EVM's m/44'/60'/0'/0/i on BEP20, POLYGON and ARBITRUM), so that a payment on any
   * of them reaches the same key. Those networks then share one index space, each address held on
   * one network at a time, and one watched set (docs/chains.md, "One address, one network").
   * Absent: each network's addresses are its own.
   */
  readonly sharedAddresses?: boolean;
  /**
   * Key material the family reads from the environment (e.g. a watch-only xpub), validated.
   * Throws FamilyConfigError naming the variable. Absent: the family reads none.
   */
  readKeys?(env: FamilyEnv): Partial<KeyMaterial>;
  /**
   * One network's real-chain settings, validated: null when nothing makes the network live (it
   * runs on devnet, or is disabled in live mode). Throws FamilyConfigError naming the variable,
   * also for a live-only setting given without what makes the network live.
   */
  readLive(env: FamilyEnv, network: FamilyNetwork): LiveSettings | null;
  /** The address codec: derivation, validation, normalization, payment links, the hot wallet. */
  codec(keys: KeyMaterial, options?: CodecOptions): AddressCodec;
  /**
   * Builds a network's live adapter from the options readLive returned. Absent: the family cannot
   * run on a real chain in this version; a network configured live is refused at start (exit 78).
   */
  readonly live?: LiveAdapterFactory;
  /** The simulated chain of a network (devnet mode). Absent: the devnet simulation (DevnetAdapter) with this family's codec. */
  readonly devnet?: DevnetAdapterFactory;
}

/** The environment, empty values removed (docker-compose's `${X:-}` is unset). */
export type FamilyEnv = Readonly<Record<string, string | undefined>>;

/** What readLive knows of the network besides the environment. */
export interface FamilyNetwork {
  readonly network: NetworkCode;
  /** `<CODE>_CONFIRMATIONS` or the network's default (config/network-defaults.ts). */
  readonly requiredConfirmations: number;
}

/** A network configured for its real chain. */
export interface LiveSettings {
  /** The variable that makes it live (e.g. `POLYGON_RPC_URL`): messages name it. */
  readonly from: string;
  /** Handed unchanged to the family's live factory (LiveAdapterInput.options). */
  readonly options: unknown;
  /**
   * The network's required confirmations on its real chain when `<CODE>_CONFIRMATIONS` is not set
   * (e.g. 1 on TON, final after one masterchain block); absent: the network's default
   * (config/network-defaults.ts), which devnet keeps so that its walk-through shows `confirming`.
   */
  readonly requiredConfirmations?: number;
}

/** Construction options of a codec; tests only. */
export interface CodecOptions {
  /** The secp256k1 families' second implementation (default: the add-on this thread loads). A test injects a wrong one here. */
  readonly addon?: Secp256k1Addon;
}

export type DevnetAdapterFactory = (options: DevnetAdapterOptions) => ChainAdapter & DevnetControls;
