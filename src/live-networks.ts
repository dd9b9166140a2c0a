import { hasLiveAdapter } from './chains/registry';
import { type Config, ConfigError } from './config/config';
import { NETWORK_CODES } from './domain/networks';

/** Live mode runs each network with <CODE>_RPC_URL on its real chain: one without a live adapter yet cannot. */
export function refuseUnrunnableLive(config: Config): void {
  if (config.CHAIN_MODE !== 'live') return;
  for (const code of NETWORK_CODES) {
    if (config.networks[code].rpcUrl !== undefined && !hasLiveAdapter(code)) {
      throw new ConfigError(`${code}_RPC_URL`, `${code} cannot run on a real chain in this version (no live adapter for it yet); unset ${code}_RPC_URL (in live mode ${code} is then disabled)`);
    }
  }
}
