import { formatUnits, parseTransaction, type Address, type Hex } from 'viem';
import { ValidationError } from '../../src/domain/errors';
import { PayoutBroadcastError, PayoutInsufficientGasError, PayoutInsufficientTokenError, PayoutNonceConsumedError, type EvmAdapter } from '../../src/chains/evm';
import { ERC20_ABI } from '../../src/chains/evm/abi';
import type { PayoutBook, SignedPayout } from '../../src/chains/types';
import { evmPayoutWallet } from '../../src/chains/evm/payout-wallet';
import { testAdapter, testCodec } from './support/adapter';
import { startHardhatNode, type HardhatNode } from './support/hardhat-node';
import { TestChain } from './support/test-chain';

let node: HardhatNode;
let chain: TestChain;
let token: Address;
const codec = testCodec();
const hot = codec.hotWallet().address as Address;
const adapters: EvmAdapter[] = [];

beforeAll(async () => {
  node = await startHardhatNode();
  chain = new TestChain(node.url);
  token = await chain.deployToken(6);
  await chain.mint(token, hot, 1_000_000_000n); // 1000 USDT
  await chain.fundEth(hot);
});

afterAll(async () => {
  await Promise.all(adapters.map((a) => a.close()));
  await node?.stop();
});

/** A fresh adapter: a restarted process has nothing in memory but what it persisted. */
async function processAdapter(): Promise<EvmAdapter> {
  const adapter = await testAdapter({ rpcUrl: node.url, tokenAddress: token, confirmations: 2 });
  adapters.push(adapter);
  return adapter;
}

/**
 * An adapter of a restarted process: a fresh module graph, so even the per-wallet nonce books
 * (module state shared by the adapters of one process) start empty.
 */
async function restartedProcessAdapter(): Promise<EvmAdapter> {
  let support!: typeof import('./support/adapter');
  jest.isolateModules(() => {
    support = require('./support/adapter') as typeof import('./support/adapter');
  });
  const adapter = await support.testAdapter({ rpcUrl: node.url, tokenAddress: token, confirmations: 2 });
  adapters.push(adapter);
  return adapter;
}

/** The Transfer events of our token to `to` (one per payout that reached the chain). */
async function transfersTo(to: string): Promise<bigint[]> {
  const logs = await chain.public.getContractEvents({ address: token, abi: ERC20_ABI, eventName: 'Transfer', args: { to: to as Address }, fromBlock: 0n });
  return logs.map((l) => l.args.value!);
}

const persist = (p: SignedPayout): string => JSON.stringify(p);
const load = (s: string): SignedPayout => JSON.parse(s) as SignedPayout;

describe('EVM adapter: payouts from the hot wallet', () => {
  it('sign (not broadcast), crash, broadcast the persisted raw twice: exactly one transfer on chain', async () => {
    const to = codec.sampleAddress('merchant payout 1');
    const stored = persist(await (await processAdapter()).signPayout({ id: 'w-1', to, amount: '12.5' }));
    expect(await transfersTo(to)).toEqual([]); // signing sends nothing

    const restarted = await processAdapter(); // the process that signed is gone
    const payout = load(stored);
    expect(await restarted.payoutStatus(payout)).toEqual({ state: 'unknown' });
    await restarted.broadcastPayout(payout);
    await restarted.broadcastPayout(payout); // mined already (automine): success, nothing new
    await chain.mine(1);
    await restarted.broadcastPayout(payout);

    expect(await transfersTo(to)).toEqual([12_500_000n]);
    const status = await restarted.payoutStatus(payout);
    expect(status).toMatchObject({ state: 'mined', confirmations: 2 });
    expect(await chain.balanceOf(token, to)).toBe(12_500_000n);
    expect(parseTransaction(payout.raw as Hex)).toMatchObject({ to: token.toLowerCase(), nonce: payout.meta.nonce, chainId: 31337, type: 'eip1559' });
  });

  it('serializes nonces: payouts signed concurrently before any broadcast get consecutive nonces', async () => {
    const adapter = await processAdapter();
    const base = await chain.public.getTransactionCount({ address: hot, blockTag: 'pending' });
    const targets = [1, 2, 3].map((i) => codec.sampleAddress(`concurrent ${i}`));
    const signed = await Promise.all(targets.map((to, i) => adapter.signPayout({ id: `w-c${i}`, to, amount: '1' })));
    expect(signed.map((s) => s.meta.nonce).sort()).toEqual([base, base + 1, base + 2]);
    // In nonce order: hardhat's automine cannot queue a nonce gap (a real node's pool would).
    for (const s of [...signed].sort((a, b) => Number(a.meta.nonce) - Number(b.meta.nonce))) await adapter.broadcastPayout(s);
    for (const to of targets) expect(await transfersTo(to)).toEqual([1_000_000n]);
  });

  it('bumps a stuck payout: same nonce, fees +12.5% or more, the replacement is mined, the original never', async () => {
    const adapter = await processAdapter();
    const to = codec.sampleAddress('stuck payout');
    await chain.setAutomine(false);
    try {
      const original = await adapter.signPayout({ id: 'w-stuck', to, amount: '3' });
      await adapter.broadcastPayout(original);
      expect(await adapter.payoutStatus(original)).toEqual({ state: 'pending' });

      const bump = await adapter.bumpPayout(original);
      const [a, b] = [parseTransaction(original.raw as Hex), parseTransaction(bump.raw as Hex)];
      expect(b.nonce).toBe(a.nonce);
      expect(b.maxFeePerGas! * 8n).toBeGreaterThanOrEqual(a.maxFeePerGas! * 9n);
      expect(b.maxPriorityFeePerGas! * 8n).toBeGreaterThanOrEqual(a.maxPriorityFeePerGas! * 9n);
      expect(bump.meta).toMatchObject({ nonce: original.meta.nonce, replaces: original.txHash });
      // The payout book keeps the same nonce reserved for the replacement; an EVM payout never expires.
      expect(bump).toMatchObject({ wallet: evmPayoutWallet(31337, hot), sequence: a.nonce });
      expect(original).toMatchObject({ wallet: bump.wallet, sequence: a.nonce });
      await adapter.broadcastPayout(bump); // accepted as a replacement in the pool
      await chain.mine(1);

      expect(await adapter.payoutStatus(bump)).toMatchObject({ state: 'mined', confirmations: 1 });
      expect(await adapter.payoutStatus(original)).toEqual({ state: 'unknown' });
      // The old version can never be mined now; broadcasting it says so (the host does not sign
      // anew on this alone: a lagging node could say the same of a mined payout)...
      await expect(adapter.broadcastPayout(original)).rejects.toBeInstanceOf(PayoutNonceConsumedError);
      // ...while the bumped one (listing the original as a version) is simply done.
      await adapter.broadcastPayout(bump);
      expect(await transfersTo(to)).toEqual([3_000_000n]);
    } finally {
      await chain.setAutomine(true);
    }
  });

  it('a payout signed and stored but not broadcast keeps its nonce across a restart: the next one signs above it, each is mined once', async () => {
    const base = await chain.public.getTransactionCount({ address: hot, blockTag: 'pending' });
    const [toA, toB] = [codec.sampleAddress('restart A'), codec.sampleAddress('restart B')];
    const a = load(persist(await (await processAdapter()).signPayout({ id: 'w-r1', to: toA, amount: '2', book: { highestOpenSequence: async () => null } })));
    expect(a.meta.nonce).toBe(base);

    // Restarted: nothing in memory; the database still holds A, signed and open.
    const restarted = await restartedProcessAdapter();
    const asked: string[] = [];
    const book: PayoutBook = { highestOpenSequence: async (wallet) => (asked.push(wallet), a.sequence ?? null) };
    const b = await restarted.signPayout({ id: 'w-r2', to: toB, amount: '3', book });
    expect(asked).toEqual([evmPayoutWallet(31337, hot)]);
    expect(a).toMatchObject({ wallet: `31337:${hot.toLowerCase()}`, sequence: base });
    expect(b).toMatchObject({ wallet: a.wallet, sequence: base + 1 });
    expect(await chain.public.getTransactionCount({ address: hot, blockTag: 'pending' })).toBe(base); // the node knows nothing of A
    expect(b.meta.nonce).toBe(base + 1);

    await restarted.broadcastPayout(a);
    await restarted.broadcastPayout(b);
    expect(await transfersTo(toA)).toEqual([2_000_000n]);
    expect(await transfersTo(toB)).toEqual([3_000_000n]);
    expect(await restarted.payoutStatus(a)).toMatchObject({ state: 'mined' });
    expect(await restarted.payoutStatus(b)).toMatchObject({ state: 'mined' });
  });

  it('refuses amounts the token cannot represent and payouts the hot wallet cannot cover', async () => {
    const adapter = await processAdapter();
    const to = codec.sampleAddress('refused');
    await expect(adapter.signPayout({ id: 'w-p', to, amount: '1.0000001' })).rejects.toBeInstanceOf(ValidationError);
    await expect(adapter.signPayout({ id: 'w-a', to: '0x1234', amount: '1' })).rejects.toMatchObject({ code: 'invalid_address' });
    // The hot wallet holds less than it would send: said with both figures (the node only says "reverted").
    const short = await adapter.signPayout({ id: 'w-big', to, amount: '1000000' }).catch((e: unknown) => e);
    expect(short).toBeInstanceOf(PayoutInsufficientTokenError);
    const tokens = formatUnits(await chain.balanceOf(token, hot), 6);
    expect((short as Error).message).toBe(`POLYGON hot wallet ${hot} holds ${tokens} USDT; this payout sends 1000000 USDT: refill the hot wallet, then the merchant can withdraw again`);
    expect((short as PayoutInsufficientTokenError).details).toMatchObject({ network: 'POLYGON', wallet: hot, symbol: 'USDT', needed: '1000000' });
  });

  it('a hot wallet without gas money: signing is refused with what it has and what is needed; a signed payout whose broadcast it cannot pay says why', async () => {
    const adapter = await processAdapter();
    const to = codec.sampleAddress('no gas');
    const funded = await chain.public.getBalance({ address: hot });
    try {
      // Signed while there was gas money; then the wallet is emptied before the broadcast.
      const payout = await adapter.signPayout({ id: 'w-gas-1', to, amount: '1' });
      await chain.rpc('hardhat_setBalance', [hot, '0x0']);
      const refused = await adapter.broadcastPayout(payout).catch((e: unknown) => e);
      // Still a broadcast error (retried by the host: the transaction exists), with the reason.
      expect(refused).toBeInstanceOf(PayoutBroadcastError);
      expect((refused as PayoutBroadcastError).diagnosis).toBeInstanceOf(PayoutInsufficientGasError);
      expect((refused as Error).message).toMatch(new RegExp(`^broadcast of ${payout.txHash} failed: POLYGON hot wallet ${hot} has 0 POL for gas; this payout needs up to 0\\.\\d+ POL`));

      // Nothing is signed while the wallet cannot pay: no nonce taken.
      const refusedSign = await adapter.signPayout({ id: 'w-gas-2', to, amount: '1' }).catch((e: unknown) => e);
      expect(refusedSign).toBeInstanceOf(PayoutInsufficientGasError);
      expect((refusedSign as PayoutInsufficientGasError).shortfall).toMatchObject({ network: 'POLYGON', wallet: hot, symbol: 'POL', balance: '0', needed: expect.stringMatching(/^0\.\d+$/) });
    } finally {
      await chain.rpc('hardhat_setBalance', [hot, `0x${funded.toString(16)}`]);
    }
    expect(await transfersTo(to)).toEqual([]);
  });
});
