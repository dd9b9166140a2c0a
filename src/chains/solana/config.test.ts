import { ConfigError, loadConfig } from '../../config/config';
import { hasLiveAdapter } from '../registry';
import { parseSolanaEnv, SOLANA_USDT_MINT } from './config';

const refused = (env: Record<string, string>): string | null => {
  try {
    parseSolanaEnv(env);
    return null;
  } catch (e) {
    return e instanceof ConfigError ? e.variable : 'not a ConfigError';
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
  });

  it('loadConfig carries the family options; SOLANA_RPC_URL makes the daemon live', () => {
    const config = loadConfig({ SOLANA_RPC_URL: 'https://rpc.example' });
    expect(config.CHAIN_MODE).toBe('live');
    expect(config.familyLive.SOLANA).toMatchObject({ SOLANA_TOKEN_MINT: SOLANA_USDT_MINT });
  });
});
