import type { TronAdapter } from '../../src/chains/tron';
import type { TransferObservation } from '../../src/chains/types';
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
  const a = await tronTestAdapter({ rpcUrl: chain.url, tokenAddress: chain.usdt });
  adapters.push(a);
  return a;
}

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
    await chain.produce(3);
    await until(() => seen.some((o) => o.kind === 'finalize' && o.height >= t!.blockHeight));
    expect(transfers(seen)).toHaveLength(1);
    await watch.stop();
  });
});
