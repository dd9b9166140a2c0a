import { NETWORK_FACTS, type ChainFamily, type NetworkCode } from '../domain/networks';
import type { AddressCodec, KeyMaterial } from './codec';
import type { Secp256k1Addon } from './keys/secp256k1-addon';
import { EvmCodec } from './evm/codec';
import { SolanaCodec } from './solana/codec';
import { TonCodec } from './ton/codec';
import { TronCodec } from './tron/codec';

/** Construction options of a codec; tests only. */
export interface CodecOptions {
  /** The secp256k1 families' second implementation (default: the add-on this thread loads). A test injects a wrong one here. */
  readonly addon?: Secp256k1Addon;
}

const FACTORIES: Record<ChainFamily, (keys: KeyMaterial, options: CodecOptions) => AddressCodec> = {
  evm: (keys, options) => new EvmCodec(keys, options.addon),
  tron: (keys, options) => new TronCodec(keys, options.addon),
  ton: (keys) => new TonCodec(keys),
  solana: (keys) => new SolanaCodec(keys),
};

/** The address codec of a network's family (the three EVM networks share one format). */
export function createAddressCodec(network: NetworkCode, keys: KeyMaterial, options: CodecOptions = {}): AddressCodec {
  return FACTORIES[NETWORK_FACTS[network].family](keys, options);
}
