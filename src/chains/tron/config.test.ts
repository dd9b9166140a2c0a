import { parseTronEnv } from './config';
import { TronConfigError } from './errors';

describe('TRC20 environment (parseTronEnv)', () => {
  it('defaults: the real USDT, 20 confirmations, 50 TRX fee limit; null without TRC20_RPC_URL', () => {
    expect(parseTronEnv({})).toBeNull();
    expect(parseTronEnv({ TRC20_RPC_URL: 'https://api.trongrid.io/', TRC20_API_KEY: 'k' })).toEqual({
      rpcUrl: 'https://api.trongrid.io',
      apiKey: 'k',
      tokenAddress: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      confirmations: 20,
      feeLimitSun: 50_000_000,
      pollIntervalMs: 3000,
    });
    expect(parseTronEnv({ TRC20_RPC_URL: 'http://n:8090', TRC20_FEE_LIMIT: '12.5', TRC20_CONFIRMATIONS: '30' })).toMatchObject({ feeLimitSun: 12_500_000, confirmations: 30 });
  });

  it.each([
    ['TRC20_FEE_LIMIT', 'lots'],
    ['TRC20_FEE_LIMIT', '0'],
    ['TRC20_CONFIRMATIONS', '0'],
    ['TRC20_RPC_URL', 'not a url'],
  ])('refuses %s=%s naming the variable', (variable, value) => {
    const env = { TRC20_RPC_URL: 'https://api.trongrid.io', [variable]: value };
    expect(() => parseTronEnv(env)).toThrow(TronConfigError);
    expect(() => parseTronEnv(env)).toThrow(new RegExp(`^invalid configuration: ${variable}: `));
  });
});
