import type { SolanaAdapter } from '../../src/chains/solana/adapter';
import { Observed } from '../evm/support/observations';
import { seededRandom } from '../support/seeded-random';
import { testAdapter, testCodec, watched } from './support/adapter';
import { MainnetPadding } from './support/mainnet-padding';
import { Payer } from './support/payer';
import { SolanaRpcServer } from './support/rpc-server';
import { SvmChain } from './support/svm-chain';

// Shared machine: a slow moment must not fail a test that is only slow.
jest.setTimeout(120_000);

let chain: SvmChain;
let rpc: SolanaRpcServer;
let payer: Payer;
let adapter: SolanaAdapter | null = null;
const codec = testCodec();
const owners = [20, 21].map((i) => codec.deriveDepositAddress(i));

beforeAll(async () => {
  chain = new SvmChain();
  rpc = new SolanaRpcServer(chain);
  rpc.padding = new MainnetPadding(undefined, 46, 2);
  await rpc.listen();
  payer = new Payer(chain, rpc.url);
});

afterAll(async () => {
  await adapter?.close();
  await rpc?.close();
});

describe('SOLANA on mainnet-sized blocks (issue 46, item 5)', () => {
  it('1,300 padding transactions per block (votes, strangers\' USDT and USDC transfers, failed ones), 4 getBlock in flight, a provider that sometimes says "skipped": every deposit credited once, in order', async () => {
    const buyer = await payer.wallet(1_000_000_000n);
    chain.advance(1);
    const f = chain.at('finalized');
    const sigs: string[] = [];
    for (let i = 0; i < 8; i++) {
      sigs.push(await payer.pay(buyer, owners[i % 2]!, BigInt(2_000_000 + i)));
      chain.advance(1 + (i % 2));
    }
    chain.advance(chain.finalityLag + 1);
    rpc.faults.lacksBlock = { chance: 0.2, random: seededRandom(5) };
    rpc.resetCounts();
    adapter = await testAdapter(rpc.url, { SOLANA_MAX_SLOT_RANGE: 6, SOLANA_BLOCK_CONCURRENCY: 4 });
    const seen = new Observed();
    const watch = adapter.watch({ from: { slot: f.slot, blockhash: f.blockhash }, watched: watched(owners), sink: seen.sink, onError: seen.onError });
    const target = chain.at('finalized').slot;
    await seen.until(() => seen.tip() >= target, `slot ${target}`, 60_000);
    await watch.stop();
    rpc.faults.lacksBlock = null;
    const transfers = seen.of('transfer');
    expect(transfers.map((t) => t.txHash)).toEqual(sigs);
    expect(transfers.map((t) => [t.amount, t.from])).toEqual(sigs.map((_, i) => [String((2_000_000 + i) / 1e6), buyer.publicKey.toBase58()]));
    // The block's own payment sits among the padding: its eventIndex is still its account index in its own transaction.
    const first = transfers[0]!;
    expect(chain.blocks.get(first.blockHeight)!.transactions.some((t) => t.signatures[0] === first.txHash)).toBe(true);
    const produced = chain.produced.filter((s) => s > f.slot && s <= target).length;
    expect(rpc.count('getBlock')).toBeGreaterThanOrEqual(produced);
    expect(seen.errors.every((e) => e.name === 'InconsistentChainError')).toBe(true);
  });
});
