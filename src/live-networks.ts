import { hasLiveAdapter } from './chains/registry';
import { type Config, ConfigError } from './config/config';
import { NETWORK_CODES } from './domain/networks';

/** Live mode runs each network configured for its real chain: one whose family has no live adapter yet cannot. */
export function refuseUnrunnableLive(config: Config): void {
  if (config.CHAIN_MODE !== 'live') return;
  for (const code of NETWORK_CODES) {
    const live = config.networks[code].live;
    if (live !== null && !hasLiveAdapter(code, config.families)) {
      throw new ConfigError(live.from, `${code} cannot run on a real chain in this version (no live adapter for it yet); unset ${live.from} (in live mode ${code} is then disabled)`);
    }
  }
}
