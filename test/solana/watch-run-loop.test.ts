import { ConnectionException } from '@mikro-orm/core';
import type { SolanaAdapter } from '../../src/chains/solana/adapter';
import { BlockNotAvailableError } from '../../src/chains/solana/errors';
import { isRetryable } from '../../src/chains/sync/retry-rule';
import type { ChainObservation, ChainWatch } from '../../src/chains/types';
import { Observed } from '../evm/support/observations';
import { testAdapter, testCodec, watched } from './support/adapter';
import { Payer } from './support/payer';
import { SolanaRpcServer } from './support/rpc-server';
import { SvmChain } from './support/svm-chain';

jest.setTimeout(120_000);

let chain: SvmChain;
let rpc: SolanaRpcServer;
let payer: Payer;
const adapters: SolanaAdapter[] = [];
const codec = testCodec();

beforeAll(async () => {
  chain = new SvmChain();
  rpc = new SolanaRpcServer(chain);
  await rpc.listen();
  payer = new Payer(chain, rpc.url);
});

afterAll(async () => {
  await Promise.all(adapters.map((a) => a.close()));
  await rpc?.close();
});

async function adapter(): Promise<SolanaAdapter> {
  const a = await testAdapter(rpc.url);
  adapters.push(a);
  return a;
}

/** A payment to a watched owner, finalized; the cursor of the block before it. */
async function paidAfterCursor(owner: string): Promise<{ from: { slot: number; blockhash: string }; slot: number; sig: string }> {
  const buyer = await payer.wallet(1_000_000_000n);
  chain.advance(1);
  const b = chain.at('finalized');
  const sig = await payer.pay(buyer, owner, 1_500_000n);
  chain.advance(chain.finalityLag + 2);
  return { from: { slot: b.slot, blockhash: b.blockhash }, slot: chain.statuses.get(sig)!.slot, sig };
}

/** The SOLANA slot watch runs on the shared run loop (src/chains/sync/run-loop.ts) and its one rule. */
describe('SOLANA slot watch: the shared run loop', () => {
  it('-32004 and a database away are retryable classes: retried with backoff, counted by class, the payment credited once', async () => {
    const a = await adapter();
    const owner = codec.deriveDepositAddress(21);
    const { from, slot, sig } = await paidAfterCursor(owner);
    rpc.faults.notAvailable.add(slot);
    const seen = new Observed();
    let dbDown = true;
    const watch: ChainWatch = a.watch({
      from,
      watched: watched([owner]),
      onError: seen.onError,
      sink: async (o: ChainObservation) => {
        if (o.kind === 'transfer' && dbDown) {
          dbDown = false;
          throw new ConnectionException(Object.assign(new Error('terminating connection'), { code: '57P01' }));
        }
        await seen.sink(o);
      },
    });
    await seen.until(() => seen.errors.length > 0, '-32004 reported');
    rpc.faults.notAvailable.clear();
    const target = chain.at('finalized').slot;
    await seen.until(() => seen.tip() >= target, 'catch-up', 60_000);
    await watch.stop();
    expect(seen.of('transfer').map((t) => t.txHash)).toEqual([sig]);
    const stats = watch.loopStats?.();
    expect(stats).toMatchObject({ state: 'stopped', consecutiveFailures: 0, errors: expect.objectContaining({ ConnectionException: 1 }) });
    expect(stats!.errors.BlockNotAvailableError).toBeGreaterThanOrEqual(1);
    expect(stats!.retries).toBe(stats!.errors.BlockNotAvailableError! + 1);
    expect(seen.errors.filter((e) => e instanceof BlockNotAvailableError).length).toBe(stats!.errors.BlockNotAvailableError);
  });

  it('an error of no retryable class (a recording bug) stops the watch at once: never stepped again, the cursor not moved past the payment', async () => {
    const a = await adapter();
    const owner = codec.deriveDepositAddress(22);
    const { from, slot } = await paidAfterCursor(owner);
    const seen = new Observed();
    let sinkCalls = 0;
    const watch: ChainWatch = a.watch({
      from,
      watched: watched([owner]),
      onError: seen.onError,
      sink: async (o: ChainObservation) => {
        sinkCalls += 1;
        if (o.kind === 'transfer') throw new TypeError("Cannot read properties of undefined (reading 'invoiceUuid')");
        await seen.sink(o);
      },
    });
    await seen.until(() => seen.errors.length > 0, 'the failure');
    const calls = sinkCalls;
    // Long enough for today's loop to have retried it many times (20 ms doubling to 100 ms).
    await new Promise((r) => setTimeout(r, 800));
    expect(seen.errors.map((e) => e.name)).toEqual(['TypeError']);
    expect(isRetryable(seen.errors[0])).toBe(false); // the watcher halts by the same rule (watcher_halted)
    expect(sinkCalls).toBe(calls);
    expect(watch.loopStats?.()).toMatchObject({ state: 'failed', retries: 0, consecutiveFailures: 1, errors: { TypeError: 1 } });
    expect(seen.tip()).toBeLessThan(slot);
    await watch.stop();
  });
});
