import { FamilyConfigError } from '../errors';
import { readTronLive } from './config';

const network = { network: 'TRC20' as const, requiredConfirmations: 20 };

describe('TRC20 environment (readTronLive)', () => {
  it('defaults: the real USDT, the network confirmations, 50 TRX fee limit; null without TRC20_RPC_URL', () => {
    expect(readTronLive({}, network)).toBeNull();
    expect(readTronLive({ TRC20_RPC_URL: 'https://api.trongrid.io/', TRC20_API_KEY: 'k' }, network)?.options).toEqual({
      rpcUrl: 'https://api.trongrid.io',
      apiKey: 'k',
      tokenAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      confirmations: 20,
      feeLimitSun: 50_000_000,
      pollIntervalMs: 9000,
      rps: 10,
    });
    expect(readTronLive({ TRC20_RPC_URL: 'http://n:8090', TRC20_RPS: '4.5' }, network)?.options).toMatchObject({ rps: 4.5 });
    expect(readTronLive({ TRC20_RPC_URL: 'http://n:8090', TRC20_FEE_LIMIT: '12.5' }, { ...network, requiredConfirmations: 30 })?.options).toMatchObject({
      feeLimitSun: 12_500_000,
      confirmations: 30,
    });
  });

  it.each([
    ['TRC20_FEE_LIMIT', 'lots'],
    ['TRC20_FEE_LIMIT', '0'],
    ['TRC20_POLL_INTERVAL_MS', '1'],
    ['TRC20_RPS', '0'],
    ['TRC20_RPS', 'fast'],
    ['TRC20_RPC_URL', 'not a url'],
  ])('refuses %s=%s naming the variable', (variable, value) => {
    const env = { TRC20_RPC_URL: 'https://api.trongrid.io', [variable]: value };
    expect(() => readTronLive(env, network)).toThrow(FamilyConfigError);
    expect(() => readTronLive(env, network)).toThrow(new RegExp(`^invalid configuration: ${variable}: `));
  });

  it.each(['TRC20_API_KEY', 'TRC20_FEE_LIMIT', 'TRC20_TOKEN_ADDRESS', 'TRC20_POLL_INTERVAL_MS', 'TRC20_RPS'])('refuses %s without TRC20_RPC_URL (it would be ignored)', (variable) => {
    expect(() => readTronLive({ [variable]: '50' }, network)).toThrow(new RegExp(`^invalid configuration: ${variable}: is a live chain setting and needs TRC20_RPC_URL`));
  });
});
