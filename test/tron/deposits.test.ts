import type { TronAdapter } from '../../src/chains/tron';
import { InvalidCursorError } from '../../src/chains/errors';
import type { ChainCursor, ChainObservation, TransferObservation } from '../../src/chains/types';
import { recorder, testTronCodec, tronTestAdapter, until, watchedOf } from './support/adapter';
import { TronTestChain } from './support/tron-chain';

let chain: TronTestChain;
const adapters: TronAdapter[] = [];
const codec = testTronCodec();

beforeAll(async () => {
  chain = await TronTestChain.start();
}, 60_000);

afterAll(async () => {
  await Promise.all(adapters.map((a) => a.close()));
  await chain?.stop();
});

async function adapter(): Promise<TronAdapter> {
  const a = await tronTestAdapter({ rpcUrl: chain.url, tokenAddress: chain.usdt, apiKey: 'test-key' });
  adapters.push(a);
  return a;
}

type Kind<K extends ChainObservation['kind']> = Extract<ChainObservation, { kind: K }>;
const isBlock = (o: ChainObservation): o is Kind<'block'> => o.kind === 'block';
const isFinalize = (o: ChainObservation): o is Kind<'finalize'> => o.kind === 'finalize';
const transfers = (seen: { kind: string }[]): TransferObservation[] => seen.filter((o): o is TransferObservation => o.kind === 'transfer');

describe('TRC20 deposits on the TRON harness', () => {
  it('a USDT transfer paid through tronweb is seen once, keyed (txID, log index), then finalized once solidified and deep enough', async () => {
    chain.server.solidLag = 5;
    const a = await adapter();
    const to = codec.deriveDepositAddress(0);
    const { seen, sink } = recorder();
    const watch = a.watch({ from: null, watched: watchedOf(a, [to]), sink });
    await until(() => seen.length > 0);
    const txID = await chain.pay(to, 5_250_000n);
    await chain.produce(1);
    const [t] = await until(() => (transfers(seen).length > 0 ? transfers(seen) : undefined));
    expect(t).toMatchObject({ txHash: txID, eventIndex: 0, to, from: chain.buyer, amount: '5.25', memo: null, network: 'TRC20' });
    // 3 deep is not enough while the block is not solidified (5 behind the head).
    await chain.produce(3);
    await until(() => seen.some((o) => o.kind === 'block' && o.height === t!.blockHeight + 3));
    expect(seen.some((o) => o.kind === 'finalize' && o.height >= t!.blockHeight)).toBe(false);
    // The family counts: 4 deep, TRC20_CONFIRMATIONS 3, not solidified: held at 2, not final.
    const cursorAt = (height: number): ChainCursor => seen.filter(isBlock).find((o) => o.height === height)!.cursor;
    const deep4 = cursorAt(t!.blockHeight + 3);
    expect(deep4).toEqual({ height: t!.blockHeight + 3, blockId: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(a.cursorHeight(deep4)).toBe(t!.blockHeight + 3);
    expect(a.confirmationsAt(t!, deep4)).toEqual({ confirmations: 2, final: false });
    expect(t).toMatchObject({ confirmations: 1, final: false });
    await chain.produce(3);
    const fin = await until(() => seen.filter(isFinalize).find((o) => o.height >= t!.blockHeight));
    expect(fin.cursor).toEqual({ height: fin.height, blockId: fin.hash });
    // Solidified and deep enough: the full depth, final.
    const last = seen.filter(isBlock).at(-1)!;
    expect(a.confirmationsAt(t!, last.cursor)).toEqual({ confirmations: last.height - t!.blockHeight + 1, final: true });
    // Another family's cursor shape is refused, never misread.
    expect(() => a.cursorHeight({ height: 5, hash: '0xab' })).toThrow(InvalidCursorError);
    expect(transfers(seen)).toHaveLength(1);
    await watch.stop();
  });

  it('a look-alike TRC20, a reverted transfer, a zero-value transfer and a TRC10 transfer change nothing; a real one in the same block counts', async () => {
    chain.server.solidLag = 1;
    const a = await adapter();
    const to = codec.deriveDepositAddress(1);
    const { seen, sink } = recorder();
    const watch = a.watch({ from: null, watched: watchedOf(a, [to]), sink });
    await until(() => seen.length > 0);
    await chain.pay(to, 7_000_000n, chain.lookalike);
    await chain.pay(to, 10n ** 15n); // more than the buyer holds: the token reverts
    await chain.pay(to, 0n);
    await chain.payTrc10(to, 1_000_000);
    const real = await chain.pay(to, 1_000_000n);
    await chain.produce(1);
    const head = await chain.head();
    const block = await a.blockAt(head);
    // Five transactions in the block; the reverted one is there with receipt REVERT.
    const infos = (await (await fetch(`${chain.url}/wallet/gettransactioninfobyblocknum`, { method: 'POST', body: JSON.stringify({ num: head }) })).json()) as Array<{ receipt: { result?: string } }>;
    expect(infos).toHaveLength(5);
    expect(infos.map((i) => i.receipt.result)).toEqual(['SUCCESS', 'REVERT', 'SUCCESS', undefined, 'SUCCESS']);
    await until(() => seen.some((o) => o.kind === 'block' && o.height === head));
    expect(transfers(seen)).toEqual([expect.objectContaining({ txHash: real, amount: '1', blockHash: block!.blockId })]);
    await watch.stop();
  });

  it('1 and 1,000 watched addresses: the same HTTP calls per block', async () => {
    chain.server.solidLag = 1;
    const perBlock = async (watchedCount: number): Promise<Record<string, number>> => {
      const a = await adapter();
      const addresses = codec.deriveDepositAddresses(100, watchedCount);
      const { seen, sink } = recorder();
      const watch = a.watch({ from: null, watched: watchedOf(a, addresses), sink });
      await until(() => seen.length > 0);
      const start = await chain.head();
      chain.server.calls.length = 0;
      // Ten blocks, each with a payment to a watched address and one to an unwatched one.
      for (let i = 0; i < 10; i++) {
        await chain.pay(addresses[i % addresses.length]!, 1_000_000n);
        await chain.pay(codec.deriveDepositAddress(5000 + i), 1_000_000n);
        await chain.produce(1);
        await until(() => seen.some((o) => o.kind === 'block' && o.height === start + i + 1));
      }
      await watch.stop();
      expect(transfers(seen)).toHaveLength(10);
      const counts = chain.server.counts();
      return { getblockbynum: counts['wallet/getblockbynum'] ?? 0, infos: counts['wallet/gettransactioninfobyblocknum'] ?? 0 };
    };
    const one = await perBlock(1);
    const thousand = await perBlock(1000);
    // Exactly one of each per block: the header (getnowblock's block serves the tip) may be re-read, never more per address.
    expect(one.infos).toBe(10);
    expect(thousand.infos).toBe(10);
    expect(thousand.getblockbynum).toBe(one.getblockbynum);
  });

  it('a reorg above the solidified block retracts the vanished payment and sees the new branch once', async () => {
    chain.server.solidLag = 4;
    const a = await adapter();
    const to = codec.deriveDepositAddress(2);
    const { seen, sink } = recorder();
    const watch = a.watch({ from: null, watched: watchedOf(a, [to]), sink });
    await until(() => seen.length > 0);
    const snap = await chain.snapshot();
    const vanished = await chain.pay(to, 2_000_000n);
    await chain.produce(1);
    await until(() => transfers(seen).some((t) => t.txHash === vanished));
    const forkHeight = transfers(seen)[0]!.blockHeight;
    await chain.revert(snap);
    // The new branch: another payment at the same height, and longer than the old one.
    const kept = await chain.pay(to, 3_000_000n);
    await chain.produce(2);
    await until(() => transfers(seen).some((t) => t.txHash === kept));
    const reorg = seen.find((o) => o.kind === 'reorg');
    expect(reorg).toMatchObject({ kind: 'reorg', commonAncestor: { height: forkHeight - 1 } });
    const after = seen.slice(seen.indexOf(reorg!));
    expect(transfers(after).map((t) => t.txHash)).toEqual([kept]);
    await chain.produce(6);
    await until(() => seen.some((o) => o.kind === 'finalize' && o.height >= forkHeight));
    expect(transfers(seen).filter((t) => t.txHash === kept)).toHaveLength(1);
    await watch.stop();
  });

  it('the node answering 429 for a while: retried with backoff (Retry-After honoured), no payment missed', async () => {
    chain.server.solidLag = 1;
    const a = await adapter();
    const to = codec.deriveDepositAddress(3);
    const { seen, sink } = recorder();
    const errors: Error[] = [];
    const watch = a.watch({ from: null, watched: watchedOf(a, [to]), sink, onError: (e) => void errors.push(e) });
    await until(() => seen.length > 0);
    const start = await chain.head();
    chain.server.retryAfter = '0';
    chain.server.rateLimited = 40; // more than one request's retries: the watch itself backs off too
    const paid: string[] = [];
    for (let i = 0; i < 4; i++) {
      paid.push(await chain.pay(to, BigInt(1_000_000 + i)));
      await chain.produce(1);
    }
    await until(() => seen.some((o) => o.kind === 'block' && o.height === start + 4), 30_000);
    expect(transfers(seen).map((t) => t.txHash)).toEqual(paid);
    expect(errors.some((e) => e.name === 'TronRateLimitedError' && (e as { details?: { status?: number } }).details?.status === 429)).toBe(true);
    expect(chain.server.rateLimited).toBe(0);
    // Every request of the adapter carried the key (TRC20_API_KEY -> TRON-PRO-API-KEY).
    expect(chain.server.apiKeys.filter((k) => k !== null).every((k) => k === 'test-key')).toBe(true);
    await watch.stop();
  });
});
