import { InconsistentChainError } from '../../src/chains/sync/errors';
import type { SolanaAdapter } from '../../src/chains/solana/adapter';
import { Observed } from '../evm/support/observations';
import { seededRandom } from '../support/seeded-random';
import { testAdapter, testCodec, watched } from './support/adapter';
import { Payer } from './support/payer';
import { SolanaRpcServer } from './support/rpc-server';
import { SvmChain } from './support/svm-chain';

// Shared machine: a slow moment must not fail a test that is only slow.
jest.setTimeout(120_000);

let chain: SvmChain;
let rpc: SolanaRpcServer;
let payer: Payer;
const adapters: SolanaAdapter[] = [];
const codec = testCodec();
const owners = [10, 11, 12].map((i) => codec.deriveDepositAddress(i));

beforeAll(async () => {
  chain = new SvmChain();
  rpc = new SolanaRpcServer(chain);
  await rpc.listen();
  payer = new Payer(chain, rpc.url);
});

afterEach(() => {
  rpc.faults.lacksBlock = null;
  rpc.faults.skippedLie.clear();
});

afterAll(async () => {
  await Promise.all(adapters.map((a) => a.close()));
  await rpc?.close();
});

/** Pays `n` deposits, one per produced block (each then followed by 0-2 empty blocks), and finalizes them. */
async function deposits(n: number): Promise<{ from: { slot: number; blockhash: string }; sigs: string[] }> {
  const buyer = await payer.wallet(1_000_000_000n);
  chain.advance(1);
  const f = chain.at('finalized');
  const sigs: string[] = [];
  for (let i = 0; i < n; i++) {
    sigs.push(await payer.pay(buyer, owners[i % owners.length]!, BigInt(1_000_000 + i)));
    chain.advance(1 + (i % 3));
  }
  chain.advance(chain.finalityLag + 1);
  return { from: { slot: f.slot, blockhash: f.blockhash }, sigs };
}

/** Watches from `from` until the finalized tip is reached (or `ms` pass: a stall fails here). */
async function follow(from: { slot: number; blockhash: string }, range: number, ms: number): Promise<Observed> {
  const a = await testAdapter(rpc.url, { SOLANA_MAX_SLOT_RANGE: range });
  adapters.push(a);
  const seen = new Observed();
  const watch = a.watch({ from, watched: watched(owners), sink: seen.sink, onError: seen.onError });
  const target = chain.at('finalized').slot;
  try {
    await seen.until(() => seen.tip() >= target, `the finalized slot ${target} (a stall stays at ${seen.tip()})`, ms);
  } finally {
    await watch.stop();
  }
  return seen;
}

/** Every payment once, in order; cursor commits only move forward and name real blocks. */
function expectCreditedOnce(seen: Observed, sigs: string[]): void {
  expect(seen.of('transfer').map((t) => t.txHash)).toEqual(sigs);
  expect(seen.of('transfer').map((t) => t.amount)).toEqual(sigs.map((_, i) => String((1_000_000 + i) / 1e6)));
  const heights = seen.of('block').map((b) => b.height);
  expect(heights).toEqual([...heights].sort((x, y) => x - y));
  for (const b of seen.of('block')) expect(chain.blocks.get(b.height)?.blockhash).toBe(b.hash);
}

describe('SOLANA: -32007 for a slot getBlocks listed (issue 46, item 2)', () => {
  it('the last listed slot of a range answered "skipped" once: retried, not passed over; no stall', async () => {
    const { from, sigs } = await deposits(6);
    const range = 8;
    // The last produced slot of the watch's first getBlocks range [from + 1, from + range].
    const last = chain.produced.filter((s) => s > from.slot && s <= from.slot + range).at(-1)!;
    expect(chain.produced.some((s) => s > last)).toBe(true);
    rpc.faults.skippedLie.add(last);
    const seen = await follow(from, range, 20_000);
    expect(rpc.faults.skippedLie.has(last)).toBe(false); // the lie was told
    expectCreditedOnce(seen, sigs);
  });

  it('a load-balanced provider whose nodes sometimes lack a listed block: every deposit credited once, no stall', async () => {
    const { from, sigs } = await deposits(24);
    let told = 0;
    const random = seededRandom(46);
    rpc.faults.lacksBlock = {
      chance: 0.3,
      random: () => {
        const r = random();
        if (r < 0.3) told += 1;
        return r;
      },
    };
    const seen = await follow(from, 5, 40_000);
    expect(told).toBeGreaterThan(5);
    expectCreditedOnce(seen, sigs);
    // A block after a lied-about slot names that slot as parent: read again from the cursor.
    expect(seen.errors.some((e) => e instanceof InconsistentChainError)).toBe(true);
    expect(seen.errors.every((e) => e instanceof InconsistentChainError)).toBe(true);
  });
});
