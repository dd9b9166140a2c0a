import type { ChainFamilyDefinition } from '../family';
import { rpcUrlOnly } from '../family-env';
import { TonCodec } from './codec';

/**
 * The TON family. No live adapter yet: `TON_RPC_URL` makes the network live and the daemon then
 * refuses to start (exit 78) rather than simulate it. The live adapter's own configuration parser
 * replaces rpcUrlOnly and adds `live` (docs/chains.md).
 */
export const tonFamily: ChainFamilyDefinition = {
  id: 'ton',
  networks: ['TON'],
  readLive: (env, { network }) => rpcUrlOnly(env, network),
  codec: (keys) => new TonCodec(keys),
};
