import { NETWORK_FACTS, type ChainFamily, type NetworkCode } from '../domain/networks';
import type { AddressCodec, KeyMaterial } from './codec';
import type { NativeSecp256k1 } from './keys/native-secp256k1';
import { EvmCodec } from './evm/codec';
import { SolanaCodec } from './solana/codec';
import { TonCodec } from './ton/codec';
import { TronCodec } from './tron/codec';

const FACTORIES: Record<ChainFamily, (keys: KeyMaterial, native: NativeSecp256k1 | null) => AddressCodec> = {
  evm: (keys, native) => new EvmCodec(keys, native),
  tron: (keys, native) => new TronCodec(keys, native),
  ton: (keys) => new TonCodec(keys),
  solana: (keys) => new SolanaCodec(keys),
};

/**
 * The address codec of a network's family (the three EVM networks share one format). `native`:
 * secp256k1 families derive with libsecp256k1 and a native keccak (the derivation thread only).
 */
export function createAddressCodec(network: NetworkCode, keys: KeyMaterial, native: NativeSecp256k1 | null = null): AddressCodec {
  return FACTORIES[NETWORK_FACTS[network].family](keys, native);
}
