import type { ChainFamilyDefinition } from '../family';
import { SolanaCodec } from './codec';
import { parseSolanaEnv } from './config';
import { solanaLiveFactory } from './live-factory';

/**
 * The SOLANA family: `SOLANA_RPC_URL` makes the network live; its other live variables
 * (`SOLANA_TOKEN_MINT`, `SOLANA_POLL_INTERVAL_MS`, ...) are read by parseSolanaEnv, which throws
 * FamilyConfigError (exit 78) for a bad value or for one given without SOLANA_RPC_URL.
 */
export const solanaFamily: ChainFamilyDefinition = {
  id: 'solana',
  networks: ['SOLANA'],
  readLive: (env) => {
    const options = parseSolanaEnv(env);
    return options ? { from: 'SOLANA_RPC_URL', options } : null;
  },
  codec: (keys) => new SolanaCodec(keys),
  live: solanaLiveFactory,
};
