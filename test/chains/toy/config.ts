import { z } from 'zod';
import type { FamilyEnv, FamilyNetwork, LiveSettings } from '../../../src/chains/family';
import { readVariable } from '../../../src/chains/family-env';

/**
 * The toy family's environment (its only variable):
 *   <CODE>_TOY_NODE   the toy chain's node URL; setting it makes the network live. The toy family
 *                     has no live adapter, so a daemon with it set refuses to start (exit 78).
 * The EVM family's variables (POLYGON_RPC_URL, ...) mean nothing for a network the toy family runs.
 */
export function readToyLive(env: FamilyEnv, { network }: FamilyNetwork): LiveSettings | null {
  const variable = `${network}_TOY_NODE`;
  const url = readVariable(env, variable, z.string().url());
  return url === undefined ? null : { from: variable, options: { url } };
}
