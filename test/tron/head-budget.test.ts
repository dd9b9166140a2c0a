import { privateKeyToAccount } from 'viem/accounts';
import type { TronAdapter } from '../../src/chains/tron';
import { HARDHAT_KEYS } from '../evm/support/test-chain';
import { recorder, testTronCodec, tronTestAdapter, until, watchedOf } from './support/adapter';
import { TronTestChain } from './support/tron-chain';

jest.setTimeout(60_000);

/**
 * Issue 46 item 6: at the head the watcher stays within TronGrid's free tier (<= 50k calls a day,
 * 28,800 blocks: <= 1.73 calls per block). Mainnet's shape (solidified head 19 behind,
 * TRC20_CONFIRMATIONS 20, transactions in every block), the defaults' timing run 10x faster
 * (a block every 300 ms, poll 900 ms, a head read reused for 300 ms, solidified head once per 10 blocks).
 */
let chain: TronTestChain;
let adapter: TronAdapter;
const BLOCKS = 30;

beforeAll(async () => {
  chain = await TronTestChain.start();
  chain.server.solidLag = 19;
  await strangerBlocks(25, 0);
  adapter = await tronTestAdapter({ rpcUrl: chain.url, tokenAddress: chain.usdt, apiKey: 'head', confirmations: 20, pollIntervalMs: 900, headReuseMs: 300, solidEveryBlocks: 10, rps: 100 });
}, 60_000);

afterAll(async () => {
  await adapter?.close();
  await chain?.stop();
});

/** `n` blocks, one every `everyMs`, each with a stranger's transaction (as on mainnet). */
async function strangerBlocks(n: number, everyMs: number): Promise<void> {
  const stranger = privateKeyToAccount(HARDHAT_KEYS[0]).address;
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    await new Promise((r) => setTimeout(r, Math.max(0, t0 + (i + 1) * everyMs - performance.now())));
    await chain.evm.rpc('eth_sendTransaction', [{ from: stranger, to: stranger, value: '0x1' }]);
    await chain.produce(1);
  }
}

it('following the head costs at most 1.73 calls per block (50,000 a day), the solidified head read about once per 10 blocks', async () => {
  const { seen, sink } = recorder();
  const watch = adapter.watch({ from: null, watched: watchedOf(adapter, [testTronCodec().deriveDepositAddress(30)]), sink });
  await until(() => seen.length > 0);
  const from = chain.server.calls.length;
  await strangerBlocks(BLOCKS, 300);
  const head = await chain.head();
  await until(() => seen.some((o) => o.kind === 'block' && o.height === head), 15_000);
  await watch.stop();
  const calls = chain.server.calls.slice(from).filter((_, i) => chain.server.apiKeys[from + i] === 'head');
  const count = (path: string): number => calls.filter((p) => p === path).length;
  expect(calls.length / BLOCKS).toBeLessThanOrEqual(50_000 / 28_800);
  expect(count('wallet/gettransactioninfobyblocknum')).toBe(BLOCKS);
  expect(count('walletsolidity/getnowblock')).toBeLessThanOrEqual(BLOCKS / 10 + 1);
  expect(count('wallet/getnowblock') + count('wallet/getblockbynum')).toBe(0);
});
