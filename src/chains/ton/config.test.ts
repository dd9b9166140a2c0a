import { NETWORK_FACTS } from '../../domain/networks';
import { loadConfig } from '../../config/config';
import { parseTonOptions, readTonLive } from './config';

const TON = { network: 'TON', requiredConfirmations: 3 } as const;
const MASTER = NETWORK_FACTS.TON.mainnetToken;

describe('TON configuration (the family readLive)', () => {
  it('without TON_RPC_URL: not live; with it: the real USDT master, 2 s polls by default', () => {
    expect(readTonLive({}, TON)).toBeNull();
    expect(readTonLive({ TON_RPC_URL: 'https://toncenter.com/api/v2/jsonRPC' }, TON)).toEqual({
      from: 'TON_RPC_URL',
      options: { rpcUrl: 'https://toncenter.com/api/v2/jsonRPC', jettonMaster: MASTER, pollIntervalMs: 2000, rps: 1 },
      requiredConfirmations: 1,
    });
    expect(readTonLive({ TON_RPC_URL: 'https://x.example/api', TON_API_KEY: 'k', TON_POLL_INTERVAL_MS: '500' }, { network: 'TON', requiredConfirmations: 1 })?.options).toMatchObject({
      apiKey: 'k',
      pollIntervalMs: 500,
      rps: 10,
    });
  });

  it("TON_RPS: toncenter's budget by default (1 call/s without TON_API_KEY, 10 with); a set value wins", () => {
    const url = { TON_RPC_URL: 'https://x.example/api' };
    expect(readTonLive(url, TON)?.options).toMatchObject({ rps: 1 });
    expect(readTonLive({ ...url, TON_API_KEY: 'k' }, TON)?.options).toMatchObject({ rps: 10 });
    expect(readTonLive({ ...url, TON_RPS: '25' }, TON)?.options).toMatchObject({ rps: 25 });
    expect(readTonLive({ ...url, TON_API_KEY: 'k', TON_RPS: '3' }, TON)?.options).toMatchObject({ rps: 3 });
  });

  it.each([
    [{ TON_RPC_URL: 'not a url' }, 'TON_RPC_URL'],
    [{ TON_RPC_URL: 'https://x.example', TON_POLL_INTERVAL_MS: '5' }, 'TON_POLL_INTERVAL_MS'],
    [{ TON_RPC_URL: 'https://x.example', TON_JETTON_MASTER: 'EQnope' }, 'TON_JETTON_MASTER'],
    [{ TON_JETTON_MASTER: MASTER }, 'TON_JETTON_MASTER'],
    [{ TON_API_KEY: 'k' }, 'TON_API_KEY'],
    [{ TON_RPC_URL: 'https://x.example', TON_RPS: '0' }, 'TON_RPS'],
    [{ TON_RPC_URL: 'https://x.example', TON_RPS: '1.5' }, 'TON_RPS'],
    [{ TON_RPS: '5' }, 'TON_RPS'],
  ])('%j is refused naming %s (FamilyConfigError)', (env, variable) => {
    expect(() => readTonLive(env, TON)).toThrow(expect.objectContaining({ name: 'FamilyConfigError', variable }));
  });

  it('the factory validates its options again, naming the variable', () => {
    expect(() => parseTonOptions(undefined)).toThrow(expect.objectContaining({ variable: 'TON_RPC_URL' }));
    expect(() => parseTonOptions({ rpcUrl: 'https://x.example', jettonMaster: MASTER, pollIntervalMs: 5 })).toThrow(expect.objectContaining({ variable: 'TON_POLL_INTERVAL_MS' }));
  });

  it('loadConfig: TON_RPC_URL makes the daemon live with TON configured; TON_CONFIRMATIONS is the network setting; bad values are ConfigErrors (exit 78)', () => {
    const live = loadConfig({ TON_RPC_URL: 'https://x.example/api' });
    expect(live.CHAIN_MODE).toBe('live');
    expect(live.networks.TON.live).toEqual({ from: 'TON_RPC_URL', options: expect.objectContaining({ rpcUrl: 'https://x.example/api' }), requiredConfirmations: 1 });
    // Live TON defaults to 1 confirmation (final after one masterchain block); devnet keeps 3; a set variable wins.
    expect(live.networks.TON.requiredConfirmations).toBe(1);
    expect(live.networks.TON.fromEnvironment).not.toContain('requiredConfirmations');
    expect(loadConfig({}).networks.TON.requiredConfirmations).toBe(3);
    const five = loadConfig({ TON_RPC_URL: 'https://x.example/api', TON_CONFIRMATIONS: '5' });
    expect(five.networks.TON.requiredConfirmations).toBe(5);
    expect(loadConfig({}).networks.TON.live).toBeNull();
    expect(() => loadConfig({ TON_RPC_URL: 'nope' })).toThrow(expect.objectContaining({ name: 'ConfigError', variable: 'TON_RPC_URL' }));
    expect(() => loadConfig({ TON_JETTON_MASTER: MASTER })).toThrow(expect.objectContaining({ name: 'ConfigError', variable: 'TON_JETTON_MASTER' }));
  });
});
