import { ConfigError, loadConfig } from '../../config/config';
import { FamilyConfigError } from '../errors';
import { hasLiveAdapter } from '../registry';
import { DEFAULT_MIN_PRIORITY_FEE, parseSolanaEnv, SOLANA_USDT_MINT } from './config';

const refused = (env: Record<string, string>): string | null => {
  try {
    parseSolanaEnv(env);
    return null;
  } catch (e) {
    return e instanceof FamilyConfigError ? e.variable : 'not a FamilyConfigError';
  }
};

describe('SOLANA environment', () => {
  it('SOLANA_RPC_URL enables it; SOLANA_TOKEN_MINT defaults to the real USDT mint', () => {
    expect(parseSolanaEnv({})).toBeUndefined();
    expect(parseSolanaEnv({ SOLANA_RPC_URL: 'https://rpc.example' })).toMatchObject({ SOLANA_RPC_URL: 'https://rpc.example', SOLANA_TOKEN_MINT: SOLANA_USDT_MINT });
    expect(hasLiveAdapter('SOLANA')).toBe(true);
  });

  it('refuses, naming the variable: a bad URL or mint, live settings without SOLANA_RPC_URL, and the EVM-style SOLANA_TOKEN_ADDRESS', () => {
    expect(refused({ SOLANA_RPC_URL: 'not a url' })).toBe('SOLANA_RPC_URL');
    expect(refused({ SOLANA_RPC_URL: 'https://rpc.example', SOLANA_TOKEN_MINT: '0xdead' })).toBe('SOLANA_TOKEN_MINT');
    expect(refused({ SOLANA_TOKEN_MINT: SOLANA_USDT_MINT })).toBe('SOLANA_TOKEN_MINT');
    expect(refused({ SOLANA_RPC_URL: 'https://rpc.example', SOLANA_TOKEN_ADDRESS: SOLANA_USDT_MINT })).toBe('SOLANA_TOKEN_ADDRESS');
    expect(refused({ SOLANA_RPC_URL: 'https://rpc.example', SOLANA_MIN_PRIORITY_FEE: '5000', SOLANA_MAX_PRIORITY_FEE: '4000' })).toBe('SOLANA_MIN_PRIORITY_FEE');
  });

  it('priority fee: floor 100,000 and cap 1,000,000 micro-lamports per unit by default; a cap alone below the floor is taken', () => {
    expect(parseSolanaEnv({ SOLANA_RPC_URL: 'https://rpc.example' })).toMatchObject({ SOLANA_MAX_PRIORITY_FEE: 1_000_000 });
    expect(DEFAULT_MIN_PRIORITY_FEE).toBe(100_000); // the adapter's floor when SOLANA_MIN_PRIORITY_FEE is unset
    expect(parseSolanaEnv({ SOLANA_RPC_URL: 'https://rpc.example', SOLANA_MIN_PRIORITY_FEE: '20000' })).toMatchObject({ SOLANA_MIN_PRIORITY_FEE: 20_000 });
    expect(parseSolanaEnv({ SOLANA_RPC_URL: 'https://rpc.example', SOLANA_MAX_PRIORITY_FEE: '4000' })).toMatchObject({ SOLANA_MAX_PRIORITY_FEE: 4000 });
  });

  it('loadConfig carries the family options; SOLANA_RPC_URL makes the daemon live', () => {
    const config = loadConfig({ SOLANA_RPC_URL: 'https://rpc.example' });
    expect(config.CHAIN_MODE).toBe('live');
    expect(config.networks.SOLANA.live).toMatchObject({ from: 'SOLANA_RPC_URL', options: { SOLANA_TOKEN_MINT: SOLANA_USDT_MINT } });
  });

  it('loadConfig refuses a bad SOLANA value as a ConfigError naming it (exit 78)', () => {
    expect(() => loadConfig({ SOLANA_RPC_URL: 'https://rpc.example', SOLANA_POLL_INTERVAL_MS: 'soon' })).toThrow(ConfigError);
    expect(() => loadConfig({ SOLANA_POLL_INTERVAL_MS: '500' })).toThrow(/SOLANA_POLL_INTERVAL_MS/);
  });
});
