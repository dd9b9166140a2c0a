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
