import { NETWORK_CODES, type NetworkCode } from '../domain/networks';
import { ConfigError } from './errors';

export type ChainMode = 'devnet' | 'live';

/** What decided the mode, for messages: the variable (`CHAIN_MODE`, or a live network's LiveSettings.from) or the default. */
export interface ChainModeChoice {
  readonly mode: ChainMode;
  /** The variable that decided it; null when nothing was set (devnet by default). */
  readonly from: string | null;
}

/**
 * DESIGN.md, Embedded defaults: devnet unless a network is configured for its real chain, then
 * live; the two never mix in one daemon. `stated` (CHAIN_MODE) may state the mode but never
 * contradict the networks: `devnet` with a live network is refused (naming both), and `live` needs
 * at least one. `liveFrom`: the variable that made each live network live (LiveSettings.from, read
 * by its family), in network order.
 */
export function chooseChainMode(stated: string | undefined, liveFrom: readonly string[]): ChainModeChoice {
  if (stated === 'devnet' && liveFrom.length > 0) {
    throw new ConfigError(
      'CHAIN_MODE',
      `CHAIN_MODE=devnet with ${liveFrom.join(', ')} set: devnet and live never mix in one daemon; unset ${liveFrom.join(', ')} to run on devnet, or unset CHAIN_MODE to run live`,
    );
  }
  if (stated === 'live' && liveFrom.length === 0) {
    throw new ConfigError(
      'CHAIN_MODE',
      "CHAIN_MODE=live needs at least one network on a real chain: set its family's live settings (docs/chains.md, Chain families); networks without them are disabled in live mode",
    );
  }
  if (stated === 'devnet' || stated === 'live') return { mode: stated, from: 'CHAIN_MODE' };
  return liveFrom.length > 0 ? { mode: 'live', from: liveFrom[0]! } : { mode: 'devnet', from: null };
}

/** The networks that run in `mode`: all enabled ones on devnet; on live only those configured for their real chain. */
export function runnableNetworks(mode: ChainMode, networks: Readonly<Record<NetworkCode, { readonly enabled: boolean; readonly live: unknown }>>): NetworkCode[] {
  return NETWORK_CODES.filter((c) => networks[c].enabled && (mode === 'devnet' || networks[c].live !== null));
}
