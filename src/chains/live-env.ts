import type { NetworkCode } from '../domain/networks';
import { tonConfigFromEnv } from './ton/config';

/**
 * Families that read their own environment (their zod parser in src/chains/<family>/config.ts),
 * registered here: each returns the registry's `live` options for its network, or undefined when
 * its RPC is not configured. Errors name the variable (`variable` on the thrown error).
 * (EVM still reads its settings through src/config's generic <CODE>_* variables: evmLiveOptions.)
 */
const FAMILY_ENV: Partial<Record<NetworkCode, (env: Readonly<Record<string, string | undefined>>) => { readonly confirmations?: number } | undefined>> = {
  TON: tonConfigFromEnv,
};

/** Every registered family's live options from the environment (absent: that network has no RPC). */
export function liveOptionsFromEnv(env: Readonly<Record<string, string | undefined>>): Partial<Record<NetworkCode, { readonly confirmations?: number }>> {
  const out: Partial<Record<NetworkCode, { readonly confirmations?: number }>> = {};
  for (const [code, parse] of Object.entries(FAMILY_ENV) as Array<[NetworkCode, NonNullable<(typeof FAMILY_ENV)[NetworkCode]>]>) {
    const options = parse(env);
    if (options !== undefined) out[code] = options;
  }
  return out;
}
