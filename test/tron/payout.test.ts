import type { TronAdapter } from '../../src/chains/tron';
import type { SignedPayout } from '../../src/chains/types';
import { testTronCodec, tronTestAdapter } from './support/adapter';
import { TronTestChain } from './support/tron-chain';

jest.setTimeout(60_000);

let chain: TronTestChain;
const adapters: TronAdapter[] = [];
const codec = testTronCodec();
const hot = codec.hotWallet().address;

beforeAll(async () => {
  chain = await TronTestChain.start();
  chain.server.solidLag = 2;
  await chain.mintUsdt(hot, 1000n * 10n ** 6n);
  await chain.produce(1);
  chain.setTrx(hot, 100n);
}, 60_000);

afterAll(async () => {
  await Promise.all(adapters.map((a) => a.close()));
  await chain?.stop();
});

/** A fresh adapter: a restarted process has nothing in memory but what it persisted. */
async function processAdapter(feeLimitSun = 50_000_000): Promise<TronAdapter> {
  const a = await tronTestAdapter({ rpcUrl: chain.url, tokenAddress: chain.usdt, feeLimitSun });
  adapters.push(a);
  return a;
}

const persist = (p: SignedPayout): string => JSON.stringify(p);
const load = (s: string): SignedPayout => JSON.parse(s) as SignedPayout;

describe('TRC20 payouts from the hot wallet', () => {
  it('signed locally with a fee limit, stored, broadcast after a restart and again: one transfer; completed once solidified and deep enough', async () => {
    const payee = codec.sampleAddress('payee one');
    const first = await processAdapter();
    const stored = persist(await first.signPayout({ id: 'w-1', to: payee, amount: '12.5' }));
    const tx = JSON.parse(load(stored).raw) as { raw_data: { fee_limit: number; expiration: number; timestamp: number; data: string } };
    expect(tx.raw_data.fee_limit).toBe(50_000_000);
    expect(Buffer.from(tx.raw_data.data, 'hex').toString('utf8')).toBe('chainpay payout w-1');
    // Five minutes of chain time after its reference block (src/chains/tron/expiry.ts says why).
    expect(tx.raw_data.expiration - tx.raw_data.timestamp).toBe(300_000);
    expect(load(stored).meta.refBlock).toBe(await chain.head());
    // The process dies here (stored, not broadcast); the next one sends the stored transaction, twice.
    const second = await processAdapter();
    await expect(second.payoutStatus(load(stored))).resolves.toEqual({ state: 'unknown' });
    await second.broadcastPayout(load(stored));
    await second.broadcastPayout(load(stored)); // DUP_TRANSACTION_ERROR: already known
    await chain.produce(1);
    await expect(second.broadcastPayout(load(stored))).resolves.toBeUndefined();
    const mined = await second.payoutStatus(load(stored));
    expect(mined).toMatchObject({ state: 'mined', confirmations: 1 });
    await chain.produce(4);
    // 5 deep but solidified only 2 behind the head: counted as is once solidified.
    await expect(second.payoutStatus(load(stored))).resolves.toMatchObject({ state: 'mined', confirmations: 5 });
    expect(await chain.usdtBalance(payee)).toBe(12_500_000n);
  });

  it('a reverted payout is pending until its block is solidified, then reverted (the host fails it and releases the hold)', async () => {
    chain.server.solidLag = 3;
    const a = await processAdapter();
    const balance = await chain.usdtBalance(hot);
    // Two payouts each within the balance, together above it: the second reverts on chain.
    const one = await a.signPayout({ id: 'w-r1', to: codec.sampleAddress('r1'), amount: (Number(balance / 10n ** 6n) - 10).toString() });
    const two = await a.signPayout({ id: 'w-r2', to: codec.sampleAddress('r2'), amount: '20' });
    await a.broadcastPayout(one);
    await a.broadcastPayout(two);
    await chain.produce(1);
    await expect(a.payoutStatus(one)).resolves.toMatchObject({ state: 'mined' });
    await expect(a.payoutStatus(two)).resolves.toEqual({ state: 'pending' });
    await chain.produce(3);
    await expect(a.payoutStatus(two)).resolves.toMatchObject({ state: 'reverted' });
    expect(await chain.usdtBalance(codec.sampleAddress('r2'))).toBe(0n);
    // Refill for the next tests.
    await chain.mintUsdt(hot, 1000n * 10n ** 6n);
    await chain.produce(1);
    chain.server.solidLag = 2;
  });

  it('a stored payout never broadcast: expired only once its expiration has passed on the solidified chain; signed anew, the old one can never execute', async () => {
    const payee = codec.sampleAddress('payee expired');
    const a = await processAdapter();
    const old = await a.signPayout({ id: 'w-exp', to: payee, amount: '3' });
    await expect(a.payoutStatus(old)).resolves.toEqual({ state: 'unknown' });
    await chain.produce(90); // 270 s of chain time: not past expiration (300 s): still sendable
    await expect(a.payoutStatus(old)).resolves.toEqual({ state: 'unknown' });
    await chain.produce(13); // 309 s of chain time: past expiration, and so is the solidified head
    await expect(a.payoutStatus(old)).resolves.toEqual({ state: 'expired' });
    await expect(a.broadcastPayout(old)).resolves.toBeUndefined(); // TRANSACTION_EXPIRATION_ERROR: nothing to send
    // The host signs anew (attempt 1) only after `expired`.
    const fresh = await a.signPayout({ id: 'w-exp', to: payee, amount: '3', attempt: 1 });
    expect(fresh.txHash).not.toBe(old.txHash);
    expect(fresh.meta).toMatchObject({ payoutId: 'w-exp', to: payee, amount: '3' });
    await a.broadcastPayout(fresh);
    await a.broadcastPayout(old);
    await chain.produce(3);
    await expect(a.payoutStatus(fresh)).resolves.toMatchObject({ state: 'mined' });
    await expect(a.payoutStatus(old)).resolves.toEqual({ state: 'expired' });
    expect(await chain.usdtBalance(payee)).toBe(3_000_000n);
  });

  it('two payouts of the same amount to the same address in the same block are two transactions (the payout id is in raw_data.data)', async () => {
    const a = await processAdapter();
    const payee = codec.sampleAddress('payee twice');
    const [one, two] = [await a.signPayout({ id: 'w-t1', to: payee, amount: '2' }), await a.signPayout({ id: 'w-t2', to: payee, amount: '2' })];
    expect(one.txHash).not.toBe(two.txHash);
    await a.broadcastPayout(one);
    await a.broadcastPayout(two);
    await chain.produce(3);
    await expect(a.payoutStatus(one)).resolves.toMatchObject({ state: 'mined' });
    await expect(a.payoutStatus(two)).resolves.toMatchObject({ state: 'mined' });
    expect(await chain.usdtBalance(payee)).toBe(4_000_000n);
  });

  it('a hot wallet without TRX for the fees, without the USDT, or a fee limit below the energy: nothing signed, a clear signal', async () => {
    const a = await processAdapter();
    const payee = codec.sampleAddress('payee short');
    await expect(a.signPayout({ id: 'w-usdt', to: payee, amount: '1000000' })).rejects.toMatchObject({ code: 'payout_hot_wallet_short', details: { symbol: 'USDT' } });
    chain.setTrx(hot, 0n);
    await expect(a.signPayout({ id: 'w-trx', to: payee, amount: '1' })).rejects.toMatchObject({ code: 'payout_hot_wallet_short', details: { symbol: 'TRX', balance: '0' } });
    chain.setTrx(hot, 100n);
    const stingy = await processAdapter(1000);
    await expect(stingy.signPayout({ id: 'w-fee', to: payee, amount: '1' })).rejects.toMatchObject({ code: 'payout_fee_limit_too_low', details: { variable: 'TRC20_FEE_LIMIT' } });
    await expect(a.signPayout({ id: 'w-bad', to: 'T-not-an-address', amount: '1' })).rejects.toMatchObject({ code: 'invalid_address' });
  });
});
