import { loadConfig, ConfigError } from '../../src/config/config';

describe('configuration from the environment', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c.GRPC_PORT).toBe(50051);
    expect(c.HTTP_PORT).toBe(8080);
    expect(c.CHAIN_MODE).toBe('devnet');
    expect(c.publicUrl).toBe('http://127.0.0.1:8080');
    expect(c.dataDir.endsWith('.chainpay')).toBe(true);
    expect(c.networks.BEP20.requiredConfirmations).toBeGreaterThan(0);
  });

  it.each([
    ['GRPC_PORT', 'abc'],
    ['HTTP_PORT', '70000'],
    ['DATABASE_URL', 'not a url'],
    ['CHAIN_MODE', 'mainnet'],
    ['MASTER_KEY', 'short'],
    ['TRC20_WITHDRAWAL_FEE', '-1'],
    ['POLYGON_CONFIRMATIONS', '0'],
    ['BEP20_RPC_URL', 'nope'],
    ['EVM_DEPOSIT_XPUB', 'xprv-not-an-xpub'],
    ['TRC20_WITHDRAWAL_FEE', '1'.repeat(21)],
    ['TON_MIN_INVOICE', '0.' + '1'.repeat(19)],
    ['DEFAULT_PLATFORM_FEE_PERCENT', '100.01'],
    ['DEFAULT_PLATFORM_FEE_PERCENT', '1'.repeat(25)],
  ])('a bad %s stops start-up with a message naming it', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(variable));
  });

  it('decimals at the limits are accepted: 20 integer digits, 18 decimals, a fee of 100 %', () => {
    const c = loadConfig({ TRC20_WITHDRAWAL_FEE: '9'.repeat(20), TON_MIN_INVOICE: '0.' + '1'.repeat(18), DEFAULT_PLATFORM_FEE_PERCENT: '100' });
    expect(c.networks.TRC20.withdrawalFee).toBe('9'.repeat(20));
    expect(c.networks.TON.minInvoice).toBe('0.' + '1'.repeat(18));
    expect(c.DEFAULT_PLATFORM_FEE_PERCENT).toBe('100');
  });

  it('records which network settings the environment set', () => {
    const c = loadConfig({ TRC20_WITHDRAWAL_FEE: '2', TRC20_ENABLED: '0', TON_CONFIRMATIONS: '5' });
    expect(c.networks.TRC20.fromEnvironment).toEqual(['enabled', 'withdrawalFee']);
    expect(c.networks.TON.fromEnvironment).toEqual(['requiredConfirmations']);
    expect(c.networks.BEP20.fromEnvironment).toEqual([]);
  });

  it('per-network overrides apply', () => {
    const c = loadConfig({ TRC20_BUYER_NETWORK_FEE: '2.5', TON_CONFIRMATIONS: '7', SOLANA_ENABLED: '0' });
    expect(c.networks.TRC20.buyerNetworkFee).toBe('2.5');
    expect(c.networks.TON.requiredConfirmations).toBe(7);
    expect(c.networks.SOLANA.enabled).toBe(false);
  });
});
