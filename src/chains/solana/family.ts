import type { ChainFamilyDefinition } from '../family';
import { rpcUrlOnly } from '../family-env';
import { SolanaCodec } from './codec';

/**
 * The SOLANA family. No live adapter yet: `SOLANA_RPC_URL` makes the network live and the daemon
 * then refuses to start (exit 78) rather than simulate it. The live adapter's own configuration
 * parser replaces rpcUrlOnly and adds `live` (docs/chains.md).
 */
export const solanaFamily: ChainFamilyDefinition = {
  id: 'solana',
  networks: ['SOLANA'],
  readLive: (env, { network }) => rpcUrlOnly(env, network),
  codec: (keys) => new SolanaCodec(keys),
};
