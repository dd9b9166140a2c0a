import type { TronAdapter } from '../../src/chains/tron';
import { WORST_MOMENT_PATHS } from './support/lagging-backend';
import { testTronCodec, tronTestAdapter } from './support/adapter';
import { TronTestChain } from './support/tron-chain';

jest.setTimeout(60_000);

/**
 * TronGrid is a load balancer over java-tron nodes; one out of sync answers `{}` for a transaction
 * or block it has not seen. A payout is `expired` (signed anew) only on a positive proof: every
 * solidified block of its window read, the transaction in none. One `{}` is no proof.
 */
let chain: TronTestChain;
let adapter: TronAdapter;
const codec = testTronCodec();
const hot = codec.hotWallet().address;

beforeAll(async () => {
  chain = await TronTestChain.start();
  chain.server.solidLag = 2;
  await chain.mintUsdt(hot, 1000n * 10n ** 6n);
  await chain.produce(1);
  chain.setTrx(hot, 100n);
  adapter = await tronTestAdapter({ rpcUrl: chain.url, tokenAddress: chain.usdt });
}, 60_000);

afterAll(async () => {
  chain?.server.setLagging(null);
  await adapter?.close();
  await chain?.stop();
});

afterEach(() => chain.server.setLagging(null));

it('a mined payout looked up on a lagging backend at the worst moment (heads fresh, lookups `{}`) is never `expired`', async () => {
  const payee = codec.sampleAddress('lag payee');
  const payout = await adapter.signPayout({ id: 'w-lag', to: payee, amount: '7' });
  await adapter.broadcastPayout(payout);
  await chain.produce(1);
  await expect(adapter.payoutStatus(payout)).resolves.toMatchObject({ state: 'mined' });
  // Past its expiration on the solidified chain; a backend 1,000 blocks behind answers every lookup.
  await chain.produce(105);
  chain.server.setLagging({ blocks: 1000, paths: WORST_MOMENT_PATHS });
  for (let i = 0; i < 3; i++) {
    const answer = await adapter.payoutStatus(payout).catch((e: { code?: string }) => ({ state: `error ${e.code}` }));
    expect(answer).toEqual({ state: 'error payout_expiry_unproven' });
  }
  // Half the lookups on the lagging backend (round robin): still never `expired`.
  chain.server.setLagging({ blocks: 1000, paths: WORST_MOMENT_PATHS, share: 0.5 });
  for (let i = 0; i < 4; i++) {
    const answer = await adapter.payoutStatus(payout).catch(() => ({ state: 'error' }));
    expect(answer.state === 'mined' || answer.state === 'error' || answer.state === 'unknown').toBe(true);
  }
  chain.server.setLagging(null);
  await expect(adapter.payoutStatus(payout)).resolves.toMatchObject({ state: 'mined' });
  expect(await chain.usdtBalance(payee)).toBe(7_000_000n);
});

it('a payout the chain never saw is `expired` once the solidified blocks of its whole window are read without it (and not while one is missing)', async () => {
  const payout = await adapter.signPayout({ id: 'w-never', to: codec.sampleAddress('never'), amount: '1' });
  const calls = chain.server.calls.length;
  await chain.produce(105);
  // A backend 50 blocks behind answers the solidified blocks: the end of the window is missing.
  chain.server.setLagging({ blocks: 50, paths: new Set(['walletsolidity/getblockbylimitnext']) });
  await expect(adapter.payoutStatus(payout)).rejects.toMatchObject({ code: 'payout_expiry_unproven' });
  chain.server.setLagging(null);
  await expect(adapter.payoutStatus(payout)).resolves.toEqual({ state: 'expired' });
  // The proof read the window (about 100 blocks) in ranges of 100: a few calls; a second ask reuses it.
  const solidReads = (): number => chain.server.calls.slice(calls).filter((p) => p === 'walletsolidity/getblockbylimitnext').length;
  const first = solidReads();
  expect(first).toBeGreaterThanOrEqual(2);
  expect(first).toBeLessThanOrEqual(4);
  await expect(adapter.payoutStatus(payout)).resolves.toEqual({ state: 'expired' });
  expect(solidReads()).toBe(first);
});
