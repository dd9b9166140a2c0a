import { SolanaCodec } from '../../../src/chains/solana/codec';
import { SolanaAdapter } from '../../../src/chains/solana/adapter';
import { SOLANA_USDT_MINT, type SolanaLiveOptions } from '../../../src/chains/solana/config';
import { PlainWatchedSet } from '../../../src/chains/watched-set';

export const TEST_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

export const testCodec = (): SolanaCodec => new SolanaCodec({ mnemonic: TEST_MNEMONIC });

/** A live SOLANA adapter against the harness RPC, quick to poll and to retry. */
export async function testAdapter(url: string, options: Partial<SolanaLiveOptions> = {}, init = true): Promise<SolanaAdapter> {
  const adapter = new SolanaAdapter({
    network: 'SOLANA',
    codec: testCodec(),
    options: { SOLANA_RPC_URL: url, SOLANA_TOKEN_MINT: SOLANA_USDT_MINT, SOLANA_POLL_INTERVAL_MS: 20, SOLANA_MAX_SLOT_RANGE: 1000, SOLANA_MAX_PRIORITY_FEE: 1_000_000, ...options },
    backoff: { initialMs: 20, maxMs: 100 },
  });
  if (init) await adapter.init();
  return adapter;
}

export function watched(addresses: Iterable<string>): PlainWatchedSet {
  const set = new PlainWatchedSet();
  set.addAll(addresses);
  return set;
}
