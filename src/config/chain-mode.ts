import { NETWORK_CODES, type NetworkCode } from '../domain/networks';
import { ConfigError } from './errors';

export type ChainMode = 'devnet' | 'live';

/** What decided the mode, for messages: the variable (`CHAIN_MODE`, `POLYGON_RPC_URL`) or the default. */
export interface ChainModeChoice {
  readonly mode: ChainMode;
  /** The variable that decided it; null when nothing was set (devnet by default). */
  readonly from: string | null;
}

/** Settings that only a real chain reads: given without `<CODE>_RPC_URL` they would be silently ignored. */
const LIVE_ONLY_SUFFIXES = ['TOKEN_ADDRESS', 'CHAIN_ID', 'POLL_INTERVAL_MS'] as const;

/**
 * DESIGN.md, Embedded defaults: devnet unless any network's RPC is configured, then live; the two
 * never mix in one daemon. `CHAIN_MODE` may state the mode but never contradict the RPC settings:
 * `devnet` with a `<CODE>_RPC_URL` is refused (naming both), and `live` needs at least one.
 * `env` has empty values removed.
 */
export function chooseChainMode(env: Readonly<Record<string, string | undefined>>): ChainModeChoice {
  const rpcVariables = NETWORK_CODES.map((c) => `${c}_RPC_URL`).filter((v) => env[v] !== undefined);
  for (const code of NETWORK_CODES) {
    const stray = LIVE_ONLY_SUFFIXES.map((s) => `${code}_${s}`).find((v) => env[v] !== undefined);
    if (stray && env[`${code}_RPC_URL`] === undefined) {
      throw new ConfigError(stray, `is a live chain setting and needs ${code}_RPC_URL (on devnet it would be ignored); set ${code}_RPC_URL or unset ${stray}`);
    }
  }
  const stated = env.CHAIN_MODE;
  if (stated === 'devnet' && rpcVariables.length > 0) {
    throw new ConfigError(
      'CHAIN_MODE',
      `CHAIN_MODE=devnet with ${rpcVariables.join(', ')} set: devnet and live never mix in one daemon; unset ${rpcVariables.join(', ')} to run on devnet, or unset CHAIN_MODE to run live`,
    );
  }
  if (stated === 'live' && rpcVariables.length === 0) {
    throw new ConfigError('CHAIN_MODE', 'CHAIN_MODE=live needs at least one network on a real chain: set <CODE>_RPC_URL (e.g. POLYGON_RPC_URL); networks without one are disabled in live mode');
  }
  if (stated === 'devnet' || stated === 'live') return { mode: stated, from: 'CHAIN_MODE' };
  return rpcVariables.length > 0 ? { mode: 'live', from: rpcVariables[0]! } : { mode: 'devnet', from: null };
}

/** The networks that run in `mode`: all enabled ones on devnet; on live only those with an RPC URL. */
export function runnableNetworks(mode: ChainMode, networks: Readonly<Record<NetworkCode, { readonly enabled: boolean; readonly rpcUrl?: string }>>): NetworkCode[] {
  return NETWORK_CODES.filter((c) => networks[c].enabled && (mode === 'devnet' || networks[c].rpcUrl !== undefined));
}
