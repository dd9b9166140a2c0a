import type { ChainFamilyDefinition } from '../family';
import { readVariable, rpcUrlOnly, xpubSchema } from '../family-env';
import { TronCodec } from './codec';

/**
 * The TRON family (TRC20). No live adapter yet: `TRC20_RPC_URL` makes the network live and the
 * daemon then refuses to start (exit 78) rather than simulate it. The live adapter's own
 * configuration parser replaces rpcUrlOnly and adds `live` (docs/chains.md).
 *   TRON_DEPOSIT_XPUB   account xpub at m/44'/195'/0': watch-only deposit addresses
 */
export const tronFamily: ChainFamilyDefinition = {
  id: 'tron',
  networks: ['TRC20'],
  readKeys: (env) => ({ tronXpub: readVariable(env, 'TRON_DEPOSIT_XPUB', xpubSchema) }),
  readLive: (env, { network }) => rpcUrlOnly(env, network),
  codec: (keys, options) => new TronCodec(keys, options?.addon),
};
