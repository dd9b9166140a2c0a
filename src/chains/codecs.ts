import { NETWORK_FACTS, type ChainFamily, type NetworkCode } from '../domain/networks';
import type { AddressCodec, KeyMaterial } from './codec';
import { EvmCodec } from './evm/codec';
import { SolanaCodec } from './solana/codec';
import { TonCodec } from './ton/codec';
import { TronCodec } from './tron/codec';

const FACTORIES: Record<ChainFamily, (keys: KeyMaterial) => AddressCodec> = {
  evm: (keys) => new EvmCodec(keys),
  tron: (keys) => new TronCodec(keys),
  ton: (keys) => new TonCodec(keys),
  solana: (keys) => new SolanaCodec(keys),
};

/** The address codec of a network's family (the three EVM networks share one format). */
export function createAddressCodec(network: NetworkCode, keys: KeyMaterial): AddressCodec {
  return FACTORIES[NETWORK_FACTS[network].family](keys);
}
