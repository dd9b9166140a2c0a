import { EvmCodec } from '../../../src/chains/evm/codec';
import { createEvmAdapter, type EvmAdapter, type EvmAdapterConfig } from '../../../src/chains/evm';

/** A BIP-39 test mnemonic (not hardhat's, so deposit addresses are not hardhat's funded accounts). */
export const TEST_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

export const testCodec = (): EvmCodec => new EvmCodec({ mnemonic: TEST_MNEMONIC });

/** A POLYGON-like live adapter against the test node, quick to poll. */
export async function testAdapter(config: Partial<EvmAdapterConfig> & Pick<EvmAdapterConfig, 'rpcUrl' | 'tokenAddress'>): Promise<EvmAdapter> {
  const adapter = createEvmAdapter({ network: 'POLYGON', codec: testCodec(), confirmations: 3, pollIntervalMs: 50, backoff: { initialMs: 50, maxMs: 200 }, ...config });
  await adapter.init();
  return adapter;
}

/**
 * The environment of a daemon whose POLYGON is live on a hardhat node (chain 31337) with `token` as
 * its USDT and the test mnemonic's keys: 3 confirmations, the head polled every 100 ms (live
 * default 2 s). The other networks stay disabled (live mode).
 */
export function polygonOnHardhat(rpcUrl: string, token: string): Record<string, string> {
  return {
    HD_MNEMONIC: TEST_MNEMONIC,
    POLYGON_RPC_URL: rpcUrl,
    POLYGON_CHAIN_ID: '31337',
    POLYGON_TOKEN_ADDRESS: token,
    POLYGON_CONFIRMATIONS: '3',
    POLYGON_POLL_INTERVAL_MS: '100',
    // These tests count nonces and RPC calls of payouts and deposits: no automatic sweeps (test/treasury has them).
    POLYGON_SWEEP: 'off',
  };
}
