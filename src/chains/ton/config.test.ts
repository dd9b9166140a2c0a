import { NETWORK_FACTS } from '../../domain/networks';
import { loadConfig } from '../../config/config';
import { parseTonOptions, tonConfigFromEnv } from './config';

describe('TON configuration (its own zod parser)', () => {
  it('without TON_RPC_URL: no live TON; with it: the real USDT master, 1 confirmation, 2 s polls by default', () => {
    expect(tonConfigFromEnv({})).toBeUndefined();
    expect(tonConfigFromEnv({ TON_RPC_URL: 'https://toncenter.com/api/v2/jsonRPC' })).toEqual({
      rpcUrl: 'https://toncenter.com/api/v2/jsonRPC',
      jettonMaster: NETWORK_FACTS.TON.mainnetToken,
      confirmations: 1,
      pollIntervalMs: 2000,
    });
    expect(tonConfigFromEnv({ TON_RPC_URL: 'https://x.example/api', TON_API_KEY: 'k', TON_CONFIRMATIONS: '3' })).toMatchObject({ apiKey: 'k', confirmations: 3 });
  });

  it('names the variable at fault; live-only settings without TON_RPC_URL are refused', () => {
    expect(() => tonConfigFromEnv({ TON_RPC_URL: 'not a url' })).toThrow(expect.objectContaining({ variable: 'TON_RPC_URL' }));
    expect(() => tonConfigFromEnv({ TON_RPC_URL: 'https://x.example', TON_CONFIRMATIONS: '0' })).toThrow(expect.objectContaining({ variable: 'TON_CONFIRMATIONS' }));
    expect(() => tonConfigFromEnv({ TON_JETTON_MASTER: 'EQ…' })).toThrow(expect.objectContaining({ variable: 'TON_JETTON_MASTER' }));
    expect(() => parseTonOptions(undefined)).toThrow(expect.objectContaining({ variable: 'TON_RPC_URL' }));
  });

  it('loadConfig: TON_RPC_URL makes the daemon live with TON at 1 required confirmation unless TON_CONFIRMATIONS says otherwise', () => {
    const live = loadConfig({ TON_RPC_URL: 'https://x.example/api' });
    expect(live.CHAIN_MODE).toBe('live');
    expect(live.networks.TON.requiredConfirmations).toBe(1);
    expect(live.familyLiveOptions.TON).toMatchObject({ rpcUrl: 'https://x.example/api' });
    expect(loadConfig({ TON_RPC_URL: 'https://x.example/api', TON_CONFIRMATIONS: '4' }).networks.TON.requiredConfirmations).toBe(4);
    expect(loadConfig({}).networks.TON.requiredConfirmations).toBe(3);
    expect(() => loadConfig({ TON_RPC_URL: 'nope' })).toThrow(expect.objectContaining({ name: 'ConfigError', variable: 'TON_RPC_URL' }));
  });
});
