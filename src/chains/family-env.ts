import { z } from 'zod';
import type { NetworkCode } from '../domain/networks';
import { FamilyConfigError } from './errors';
import type { FamilyEnv, LiveSettings } from './family';

/** `variable` from `env` through `schema`: undefined when unset; a bad value throws FamilyConfigError naming it. */
export function readVariable<T>(env: FamilyEnv, variable: string, schema: z.ZodType<T>): T | undefined {
  const raw = env[variable];
  if (raw === undefined || raw === '') return undefined;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new FamilyConfigError(variable, parsed.error.issues[0]?.message ?? 'invalid');
  return parsed.data;
}

/** An account-level BIP-32 xpub (watch-only deposit derivation). */
export const xpubSchema = z.string().regex(/^xpub[1-9A-HJ-NP-Za-km-z]{100,112}$/, 'must be an account xpub');

/**
 * The live settings of a family that has no live adapter yet: `<CODE>_RPC_URL` alone makes the
 * network live (so the daemon refuses it at start instead of simulating it).
 */
export function rpcUrlOnly(env: FamilyEnv, network: NetworkCode): LiveSettings | null {
  const variable = `${network}_RPC_URL`;
  const rpcUrl = readVariable(env, variable, z.string().url());
  return rpcUrl === undefined ? null : { from: variable, options: { rpcUrl } };
}
