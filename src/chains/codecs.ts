import type { NetworkCode } from '../domain/networks';
import type { AddressCodec, KeyMaterial } from './codec';
import { builtInFamilies } from './families';
import type { CodecOptions } from './family';

export type { CodecOptions } from './family';

/** The address codec of a network's built-in family (the three EVM networks share one format). */
export function createAddressCodec(network: NetworkCode, keys: KeyMaterial, options: CodecOptions = {}): AddressCodec {
  return builtInFamilies().of(network).codec(keys, options);
}
