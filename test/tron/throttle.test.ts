import type { TronAdapter } from '../../src/chains/tron';
import type { TransferObservation } from '../../src/chains/types';
import { privateKeyToAccount } from 'viem/accounts';
import { HARDHAT_KEYS } from '../evm/support/test-chain';
import { busiestSecond } from './support/call-rate';
import { recorder, testTronCodec, tronTestAdapter, until, watchedOf } from './support/adapter';
import { TronTestChain } from './support/tron-chain';

jest.setTimeout(90_000);

/**
 * Issue 46 item 6: TronGrid suspends a key above its rate (403 with a JSON body, ~30 s). The
 * adapter holds TRC20_RPS with a token bucket, and a throttled provider delays the watch, never
 * fails it and never loses a deposit. The harness enforces the budget per key and counts calls.
 */
let chain: TronTestChain;
const adapters: TronAdapter[] = [];
const codec = testTronCodec();
const transfers = (seen: { kind: string }[]): TransferObservation[] => seen.filter((o): o is TransferObservation => o.kind === 'transfer');

beforeAll(async () => {
  chain = await TronTestChain.start();
  chain.server.solidLag = 2;
}, 60_000);

afterAll(async () => {
  chain?.server.setRateLimit(null);
  await Promise.all(adapters.map((a) => a.close()));
  await chain?.stop();
});

async function adapter(rps: number): Promise<TronAdapter> {
  const a = await tronTestAdapter({ rpcUrl: chain.url, tokenAddress: chain.usdt, apiKey: `key-${rps}`, rps, suspensionMs: 600, maxBlockRange: 10 });
  adapters.push(a);
  return a;
}

/** `n` blocks, each with a stranger's transaction (as on mainnet), a payment to `to` in every 5th. */
async function blocksWithPayments(n: number, to: string): Promise<string[]> {
  const paid: string[] = [];
  const stranger = privateKeyToAccount(HARDHAT_KEYS[0]).address;
  for (let i = 0; i < n; i++) {
    await chain.evm.rpc('eth_sendTransaction', [{ from: stranger, to: stranger, value: '0x1' }]);
    if (i % 5 === 0) paid.push(await chain.pay(to, BigInt(1_000_000 + i)));
    await chain.produce(1);
  }
  return paid;
}

it('catching up 40 blocks within TRC20_RPS: never above it at the node, no refusal, every deposit once', async () => {
  const a = await adapter(8);
  const to = codec.deriveDepositAddress(11);
  const { seen, sink } = recorder();
  const watch = a.watch({ from: null, watched: watchedOf(a, [to]), sink });
  await until(() => seen.length > 0);
  await watch.stop();
  const cursor = seen.filter((o) => o.kind === 'block').at(-1)!.cursor;
  const paid = await blocksWithPayments(40, to);
  const head = await chain.head();
  // TronGrid's limit above ours: 10/s; ours 8/s.
  const limiter = chain.server.setRateLimit({ rps: 10, suspendMs: 1_000 })!;
  const from = chain.server.times.length;
  const again = a.watch({ from: cursor, watched: watchedOf(a, [to]), sink });
  await until(() => seen.some((o) => o.kind === 'block' && o.height === head), 60_000);
  await again.stop();
  const times = chain.server.times.slice(from).filter((_, i) => chain.server.apiKeys[from + i] === 'key-8');
  expect(times.length).toBeGreaterThan(40); // one info call per block at least: demand above 8/s
  expect(busiestSecond(times)).toBeLessThanOrEqual(8);
  expect(limiter.refused).toBe(0);
  expect(transfers(seen).map((t) => t.txHash)).toEqual(paid);
  chain.server.setRateLimit(null);
});

it('a provider that suspends the key (403 JSON above 4 calls/s) while the adapter asks for 20/s: the watch goes on, every deposit once', async () => {
  const a = await adapter(20);
  const to = codec.deriveDepositAddress(12);
  const { seen, sink } = recorder();
  const errors: Error[] = [];
  const watch = a.watch({ from: null, watched: watchedOf(a, [to]), sink, onError: (e) => void errors.push(e) });
  await until(() => seen.length > 0);
  const limiter = chain.server.setRateLimit({ rps: 4, suspendMs: 500 })!;
  const paid = await blocksWithPayments(20, to);
  const head = await chain.head();
  await until(() => seen.some((o) => o.kind === 'block' && o.height === head), 60_000);
  expect(limiter.suspensions).toBeGreaterThan(0);
  expect(watch.status().state).not.toBe('failed');
  expect(transfers(seen).map((t) => t.txHash)).toEqual(paid);
  // What reached the watch's error hook is the rate-limit class only (retried with backoff), never a failure.
  expect(errors.every((e) => e.name === 'TronRateLimitedError')).toBe(true);
  await watch.stop();
  chain.server.setRateLimit(null);
});
