import { loadConfig, ConfigError } from '../../src/config/config';

describe('configuration from the environment', () => {
  it('has working defaults', () => {
    const c = loadConfig({});
    expect(c.GRPC_PORT).toBe(50051);
    expect(c.HTTP_PORT).toBe(8080);
    expect(c.CHAIN_MODE).toBe('devnet');
    expect(c.chainModeFrom).toBeNull();
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
    ['TON_MIN_INVOICE', `0.${'1'.repeat(19)}`],
    ['DEFAULT_PLATFORM_FEE_PERCENT', '100.01'],
    ['DEFAULT_PLATFORM_FEE_PERCENT', '1'.repeat(25)],
  ])('a bad %s stops start-up with a message naming it', (variable, value) => {
    expect(() => loadConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [variable]: value })).toThrow(new RegExp(variable));
  });

  it('decimals at the limits are accepted: 20 integer digits, 18 decimals, a fee of 100 %', () => {
    const c = loadConfig({ TRC20_WITHDRAWAL_FEE: '9'.repeat(20), TON_MIN_INVOICE: `0.${'1'.repeat(18)}`, DEFAULT_PLATFORM_FEE_PERCENT: '100' });
    expect(c.networks.TRC20.withdrawalFee).toBe('9'.repeat(20));
    expect(c.networks.TON.minInvoice).toBe(`0.${'1'.repeat(18)}`);
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

  describe('chain mode (devnet and live never mix)', () => {
    const rpc = 'http://127.0.0.1:8545';

    it('any <CODE>_RPC_URL means live; without one devnet; CHAIN_MODE may state either when it agrees', () => {
      expect(loadConfig({ POLYGON_RPC_URL: rpc })).toMatchObject({ CHAIN_MODE: 'live', chainModeFrom: 'POLYGON_RPC_URL' });
      expect(loadConfig({ ARBITRUM_RPC_URL: rpc, BEP20_RPC_URL: rpc })).toMatchObject({ CHAIN_MODE: 'live', chainModeFrom: 'BEP20_RPC_URL' });
      expect(loadConfig({ CHAIN_MODE: 'live', POLYGON_RPC_URL: rpc })).toMatchObject({ CHAIN_MODE: 'live', chainModeFrom: 'CHAIN_MODE' });
      expect(loadConfig({ CHAIN_MODE: 'devnet' })).toMatchObject({ CHAIN_MODE: 'devnet', chainModeFrom: 'CHAIN_MODE' });
      // Empty values (docker-compose's ${POLYGON_RPC_URL:-}) are unset.
      expect(loadConfig({ POLYGON_RPC_URL: '', CHAIN_MODE: '' })).toMatchObject({ CHAIN_MODE: 'devnet', chainModeFrom: null });
    });

    it('CHAIN_MODE=devnet with a live setting is refused, naming both', () => {
      const refused = () => loadConfig({ CHAIN_MODE: 'devnet', POLYGON_RPC_URL: rpc });
      expect(refused).toThrow(ConfigError);
      expect(refused).toThrow(/^invalid configuration: CHAIN_MODE: CHAIN_MODE=devnet with POLYGON_RPC_URL set: devnet and live never mix in one daemon/);
    });

    it('CHAIN_MODE=live without any RPC URL is refused (every network would be disabled)', () => {
      expect(() => loadConfig({ CHAIN_MODE: 'live' })).toThrow(/CHAIN_MODE: CHAIN_MODE=live needs at least one network on a real chain/);
    });

    it.each(['POLYGON_TOKEN_ADDRESS', 'BEP20_CHAIN_ID', 'ARBITRUM_POLL_INTERVAL_MS', 'BEP20_RPC_TIMEOUT_MS'])('%s without its RPC URL is refused (it would be silently ignored)', (variable) => {
      const network = variable.split('_')[0];
      expect(() => loadConfig({ [variable]: '100' })).toThrow(new RegExp(`^invalid configuration: ${variable}: is a live chain setting and needs ${network}_RPC_URL`));
      expect(loadConfig({ [variable]: '100', [`${network}_RPC_URL`]: rpc }).CHAIN_MODE).toBe('live');
    });

    it('<CODE>_RPC_TIMEOUT_MS reaches the live options; below 100 ms it is refused', () => {
      const live = (value: string) => loadConfig({ POLYGON_RPC_URL: rpc, POLYGON_RPC_TIMEOUT_MS: value }).networks.POLYGON;
      expect(JSON.stringify(live('2500'))).toContain('"rpcTimeoutMs":2500');
      expect(() => live('99')).toThrow(/POLYGON_RPC_TIMEOUT_MS/);
    });

    it('WEBHOOK_ALLOW_PRIVATE_TARGETS is refused in live mode, however live was chosen', () => {
      expect(() => loadConfig({ WEBHOOK_ALLOW_PRIVATE_TARGETS: '1', POLYGON_RPC_URL: rpc })).toThrow(/WEBHOOK_ALLOW_PRIVATE_TARGETS: must not be set in live mode \(POLYGON_RPC_URL is set/);
    });
  });
});
