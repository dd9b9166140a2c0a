import type { NetworkCode } from '../domain/networks';
import { parseSolanaEnv } from './solana/config';

/**
 * The live families that parse their own environment (issue 33 moves every family here): each
 * returns its networks' opaque `live` options for the registry, nothing when its RPC is unset.
 * Throws ConfigError naming the variable. (EVM still reads src/config's NetworkConfig: evmLiveOptions.)
 */
export function familyLiveOptions(env: Readonly<Record<string, string | undefined>>): Partial<Record<NetworkCode, unknown>> {
  const solana = parseSolanaEnv(env);
  return solana ? { SOLANA: solana } : {};
}
