import { Address } from '@ton/core';
import type { TonAdapter } from '../../src/chains/ton';
import { TON_CALL_ATTEMPTS } from '../../src/chains/ton/client';
import { TonHistoryGapError } from '../../src/chains/ton/errors';
import { TonProviderUnavailableError } from '../../src/chains/ton/provider-errors';
import { isRetryable } from '../../src/chains/sync/retry-rule';
import { caughtUp, serviceWallet, tonAdapter, watchFrom } from './support/adapter';
import { SandboxChain } from './support/sandbox-chain';
import { startToncenter, type ToncenterServer } from './support/toncenter-server';

let chain: SandboxChain;
let server: ToncenterServer;
let adapter: TonAdapter;
let service: Address;

beforeAll(async () => {
  chain = await SandboxChain.create();
  server = await startToncenter(chain);
  adapter = tonAdapter(chain, server);
  await adapter.init();
  service = serviceWallet(adapter);
}, 60_000);

afterAll(async () => {
  await adapter?.close();
  await server?.close();
});

const USDT = 1_000_000n;
const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** The TON deposit watch runs on the shared run loop (src/chains/sync/run-loop.ts) and its one rule. */
describe('TON deposit watch: the shared run loop', () => {
  it('a provider that does not answer (retries spent) is retried with backoff and counted; nothing is lost', async () => {
    const { watch, seen } = watchFrom(adapter, null);
    await caughtUp(seen, chain);
    server.failNext('getAddressInformation', TON_CALL_ATTEMPTS);
    await chain.pay({ to: service, amount: 2n * USDT, memo: 'AFTER-OUTAGE' });
    await caughtUp(seen, chain);
    await watch.stop();
    expect(seen.errors.map((e) => e.constructor)).toEqual([TonProviderUnavailableError]);
    expect(seen.of('transfer').map((t) => t.memo)).toEqual(['AFTER-OUTAGE']);
    expect(watch.loopStats?.()).toMatchObject({ state: 'stopped', retries: 1, consecutiveFailures: 0, errors: { TonProviderUnavailableError: 1 } });
  });

  it('a node without the history back to the cursor stops the watch at once (the watcher halts); an archival node then credits every deposit', async () => {
    const first = watchFrom(adapter, null);
    const cursor = await caughtUp(first.seen, chain);
    await first.watch.stop();
    for (let i = 1; i <= 3; i++) await chain.pay({ to: service, amount: BigInt(i) * USDT, memo: `GAP-${i}` });
    // A non-archival node: only our jetton wallet's newest transaction is still served.
    const ours = await chain.transactionsOf(Address.parse(adapter.ourJettonWallet()));
    server.historyFromLt = ours.reduce((max, tx) => (tx.lt > max ? tx.lt : max), 0n);

    const pruned = watchFrom(adapter, cursor);
    await pruned.seen.until(() => pruned.seen.errors.length > 0, 'the history gap');
    // Long enough for today's loop to have retried it twice (500 ms, then 1 s of backoff).
    await pause(1800);
    expect(pruned.seen.errors.map((e) => e.constructor)).toEqual([TonHistoryGapError]);
    // The same rule the watcher halts by (watcher_halted): not retryable.
    expect(isRetryable(pruned.seen.errors[0])).toBe(false);
    expect(pruned.watch.loopStats?.()).toMatchObject({ state: 'failed', retries: 0, consecutiveFailures: 1, errors: { TonHistoryGapError: 1 } });
    // Nothing emitted and the cursor never moved: no deposit was passed over.
    expect(pruned.seen.of('transfer')).toEqual([]);
    expect(pruned.seen.of('block')).toEqual([]);
    await pruned.watch.stop();

    server.historyFromLt = 0n; // the operator points TON_RPC_URL at an archival node and resumes
    const archival = watchFrom(adapter, cursor);
    await caughtUp(archival.seen, chain);
    await archival.watch.stop();
    expect(archival.seen.of('transfer').map((t) => t.memo)).toEqual(['GAP-1', 'GAP-2', 'GAP-3']);
  });
});
