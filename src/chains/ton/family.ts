import type { ChainFamilyDefinition } from '../family';
import { TonCodec } from './codec';
import { readTonLive } from './config';
import { tonLiveFactory } from './live-factory';

/** The TON family: one registry entry (src/chains/families.ts). */
export const tonFamily: ChainFamilyDefinition = {
  id: 'ton',
  networks: ['TON'],
  readLive: readTonLive,
  codec: (keys) => new TonCodec(keys),
  live: tonLiveFactory,
};
