import { DevnetAdapter } from '../../../src/chains/devnet/adapter';
import type { ChainFamilyDefinition } from '../../../src/chains/family';
import { ToyCodec } from './codec';
import { readToyLive } from './config';

/**
 * A chain family that exists only in the test tree (docs/chains.md, Adding a family): it runs
 * POLYGON in place of the EVM family, with its own address format (codec.ts) and its own
 * configuration (config.ts). Its chain is the devnet simulation (the same block follower as the
 * live families) behind its codec; it has no live adapter.
 */
export const toyFamily: ChainFamilyDefinition = {
  id: 'toy',
  networks: ['POLYGON'],
  readLive: readToyLive,
  codec: (keys) => new ToyCodec(keys),
  devnet: (options) => new DevnetAdapter(options),
};
