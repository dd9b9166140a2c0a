import type { ChainFamilyDefinition } from '../family';
import { readVariable, xpubSchema } from '../family-env';
import { TronCodec } from './codec';
import { readTronLive } from './config';
import { tronLiveFactory } from './live-factory';

/**
 * The TRON family (TRC20): one registry entry (src/chains/families.ts).
 *   TRON_DEPOSIT_XPUB   account xpub at m/44'/195'/0': watch-only deposit addresses
 *   TRC20_*             the live settings (src/chains/tron/config.ts readTronLive)
 */
export const tronFamily: ChainFamilyDefinition = {
  id: 'tron',
  networks: ['TRC20'],
  readKeys: (env) => ({ tronXpub: readVariable(env, 'TRON_DEPOSIT_XPUB', xpubSchema) }),
  readLive: readTronLive,
  codec: (keys, options) => new TronCodec(keys, options?.addon),
  live: tronLiveFactory,
};
