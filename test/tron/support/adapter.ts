import { TronAdapter } from '../../../src/chains/tron';
import { TronCodec } from '../../../src/chains/tron/codec';
import type { TronConfig } from '../../../src/chains/tron/config';
import type { ChainObservation, WatchedSet } from '../../../src/chains/types';
import { TEST_MNEMONIC } from '../../evm/support/adapter';

export const testTronCodec = (): TronCodec => new TronCodec({ mnemonic: TEST_MNEMONIC });

/** A live TRC20 adapter on the harness, quick to poll and retry. */
export async function tronTestAdapter(config: Partial<TronConfig> & Pick<TronConfig, 'rpcUrl' | 'tokenAddress'>): Promise<TronAdapter> {
  const adapter = new TronAdapter({
    codec: testTronCodec(),
    config: {
      confirmations: 3,
      feeLimitSun: 50_000_000,
      pollIntervalMs: 30,
      // Tests produce blocks faster than every 3 s: read the solidified head and the head every time.
      solidEveryBlocks: 1,
      headReuseMs: 0,
      retryBackoff: { initialMs: 10, maxMs: 50 },
      backoff: { initialMs: 20, maxMs: 100 },
      ...config,
    },
  });
  await adapter.init();
  return adapter;
}

/** Collects a watch's observations. */
export function recorder(): { seen: ChainObservation[]; sink: (o: ChainObservation) => Promise<void> } {
  const seen: ChainObservation[] = [];
  return { seen, sink: async (o) => void seen.push(o) };
}

export function watchedOf(adapter: TronAdapter, addresses: string[]): WatchedSet {
  const set = adapter.newWatchedSet();
  set.addAll(addresses);
  return set;
}

export async function until<T>(probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}
