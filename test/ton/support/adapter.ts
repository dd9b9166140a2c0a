import { Address } from '@ton/core';
import { TonAdapter, TonCodec } from '../../../src/chains/ton';
import type { ChainCursor, ChainWatch } from '../../../src/chains/types';
import { Observed, watchedSet } from '../../evm/support/observations';
import type { SandboxChain } from './sandbox-chain';
import type { ToncenterServer } from './toncenter-server';

export const TEST_MNEMONIC = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

export interface AdapterSetup {
  readonly pageSize?: number;
  readonly jettonMaster?: string;
  readonly payoutTtlSeconds?: number;
  /** TON_RPS; the harness serves any rate unless a test puts a rate limit in front of it. */
  readonly rps?: number;
  /** Another endpoint than the server's (e.g. a rate-limiting proxy in front of it). */
  readonly rpcUrl?: string;
  readonly pollIntervalMs?: number;
}

/** A live TON adapter on the harness (TonClient over the toncenter server), with the test mnemonic. */
export function tonAdapter(chain: SandboxChain, server: ToncenterServer, setup: AdapterSetup = {}): TonAdapter {
  return new TonAdapter({
    network: 'TON',
    codec: new TonCodec({ mnemonic: TEST_MNEMONIC }),
    rpcUrl: setup.rpcUrl ?? server.url,
    jettonMaster: setup.jettonMaster ?? chain.usdt.address.toString(),
    pollIntervalMs: setup.pollIntervalMs ?? 50,
    pageSize: setup.pageSize ?? 100,
    payoutTtlSeconds: setup.payoutTtlSeconds ?? 60,
    rps: setup.rps ?? 1000,
  });
}

export function serviceWallet(adapter: TonAdapter): Address {
  return Address.parse(adapter.sharedDepositAddress());
}

/** Starts a watch recording into a fresh Observed. */
export function watchFrom(adapter: TonAdapter, from: ChainCursor | null): { watch: ChainWatch; seen: Observed } {
  const seen = new Observed();
  const watch = adapter.watch({ from, watched: watchedSet([]), sink: seen.sink, onError: seen.onError });
  return { watch, seen };
}

/** Waits until the watch committed a cursor at the harness's current masterchain seqno. */
export async function caughtUp(seen: Observed, chain: SandboxChain): Promise<ChainCursor> {
  await seen.until(() => seen.tip() >= chain.seqno, `cursor at seqno ${chain.seqno}`);
  return seen.of('block').at(-1)!.cursor;
}
