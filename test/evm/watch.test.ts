import { getAddress, type Address } from 'viem';
import type { EvmAdapter, EvmWatch } from '../../src/chains/evm';
import { TokenContractMissingError, TokenDecimalsMismatchError } from '../../src/chains/evm';
import { testAdapter, testCodec } from './support/adapter';
import { startHardhatNode, type HardhatNode } from './support/hardhat-node';
import { Observed, watchedSet } from './support/observations';
import { TestChain } from './support/test-chain';

let node: HardhatNode;
let chain: TestChain;
let usdt6: Address;
let usdt18: Address;
let lookalike: Address;
const codec = testCodec();
const deposit = [0, 1, 2].map((i) => codec.deriveDepositAddress(i));
const stranger = codec.sampleAddress('not watched');
const open: Array<{ watch?: EvmWatch; adapter: EvmAdapter }> = [];

beforeAll(async () => {
  node = await startHardhatNode();
  chain = new TestChain(node.url);
  [usdt6, usdt18, lookalike] = [await chain.deployToken(6), await chain.deployToken(18), await chain.deployToken(6)];
  await chain.mint(usdt6, chain.funder.address, 1_000_000_000_000n);
  await chain.mint(usdt18, chain.funder.address, 10n ** 30n);
  await chain.mint(lookalike, chain.funder.address, 1_000_000_000_000n);
});

afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.watch?.stop();
    await o.adapter.close();
  }
});

afterAll(async () => {
  await node?.stop();
});

async function watching(tokenAddress: Address, extra: Parameters<typeof testAdapter>[0] extends infer C ? Partial<C> : never = {}) {
  const adapter = await testAdapter({ rpcUrl: node.url, tokenAddress, ...extra });
  const seen = new Observed();
  const watch = adapter.watch({ from: null, watched: watchedSet(deposit), sink: seen.sink, onError: seen.onError });
  open.push({ adapter, watch });
  const head = await chain.head();
  await seen.until(() => seen.tip() >= head, 'the first block');
  return { adapter, seen, watch };
}

describe('EVM adapter against a hardhat node: deposits', () => {
  it('init reads the token decimals and refuses a mismatch or a non-contract', async () => {
    const polygon = testAdapter({ rpcUrl: node.url, tokenAddress: usdt18 });
    await expect(polygon).rejects.toBeInstanceOf(TokenDecimalsMismatchError);
    await expect(polygon).rejects.toMatchObject({ code: 'token_decimals_mismatch', details: { expected: 6, actual: 18 } });
    await expect(testAdapter({ rpcUrl: node.url, tokenAddress: stranger })).rejects.toBeInstanceOf(TokenContractMissingError);
    const bep20 = await testAdapter({ network: 'BEP20', rpcUrl: node.url, tokenAddress: usdt18 });
    expect(bep20.tokenDecimals).toBe(18);
    expect(bep20.paymentLink({ address: deposit[0]!, amount: '1.5', memo: null })).toBe(`ethereum:${getAddress(usdt18)}@31337/transfer?address=${deposit[0]}&uint256=1500000000000000000`);
  });

  it('6 decimals: the exact amount, confirmations as blocks are mined, finalize at the required depth', async () => {
    const { seen } = await watching(usdt6);
    const hash = await chain.transfer(usdt6, deposit[0]!, 12_345_678n);
    const receipt = await chain.public.getTransactionReceipt({ hash });
    const height = Number(receipt.blockNumber);
    await seen.until(() => seen.of('transfer').length === 1 && seen.tip() >= height, 'the transfer');
    const block = await chain.public.getBlock({ blockNumber: receipt.blockNumber });
    expect(seen.of('transfer')[0]).toEqual({
      kind: 'transfer',
      network: 'POLYGON',
      txHash: hash,
      eventIndex: receipt.logs[0]!.logIndex,
      blockHeight: height,
      blockHash: receipt.blockHash,
      from: chain.funder.address.toLowerCase(),
      to: deposit[0]!.toLowerCase(),
      memo: null,
      amount: '12.345678',
      blockTime: new Date(Number(block.timestamp) * 1000), // its block header's time: invoices judge "in time" by it
      confirmations: 1, // counted by the family at the block it comes with
      final: false,
    });
    // The transfer is reported before the block that carries the new cursor.
    const transferAt = seen.all.findIndex((o) => o.kind === 'transfer');
    expect(seen.all.slice(transferAt + 1).find((o) => o.kind === 'block')).toMatchObject({ height, hash: receipt.blockHash });
    expect(seen.of('finalize').some((f) => f.height >= height)).toBe(false);

    await chain.mine(1); // 2 confirmations
    await seen.until(() => seen.tip() === height + 1, 'block +1');
    expect(seen.of('finalize').some((f) => f.height >= height)).toBe(false);
    await chain.mine(1); // 3 confirmations = required
    await seen.until(() => seen.of('finalize').some((f) => f.height === height), 'finalize');
    expect(seen.of('finalize').find((f) => f.height === height)).toEqual({ kind: 'finalize', network: 'POLYGON', height, hash: receipt.blockHash, cursor: { height, hash: receipt.blockHash } });
    expect(seen.tip()).toBe(height + 2);
    expect(seen.of('transfer')).toHaveLength(1);
    expect(seen.errors).toEqual([]);
  });

  it('18 decimals (BEP20): amounts keep every digit; several events in one transaction', async () => {
    const { seen } = await watching(usdt18, { network: 'BEP20' });
    const hash = await chain.multiTransfer(usdt18, [deposit[1]!, deposit[2]!], [1_000_000_000_000_000_001n, 123_456_789_012_345_678_901_234n]);
    await seen.until(() => seen.of('transfer').length === 2, 'two transfers');
    const [a, b] = seen.of('transfer');
    expect([a!.amount, b!.amount]).toEqual(['1.000000000000000001', '123456.789012345678901234']);
    expect([a!.txHash, b!.txHash]).toEqual([hash, hash]);
    expect(b!.eventIndex).toBe(a!.eventIndex + 1);
    expect(a!.network).toBe('BEP20');
  });

  it('ignores a look-alike token, a zero-value transfer, a reverted transfer and unwatched recipients', async () => {
    const { seen } = await watching(usdt6);
    await chain.transfer(lookalike, deposit[0]!, 5_000_000n);
    await chain.transfer(usdt6, deposit[0]!, 0n);
    await chain.transfer(usdt6, stranger, 7_000_000n);
    // chain.other holds no tokens: hardhat mines the transaction (status reverted, no logs) and
    // answers the send with the revert (gas is given to skip the estimation that would refuse it).
    await expect(chain.transfer(usdt6, deposit[0]!, 9_000_000n, chain.other, 100_000n)).rejects.toThrow(/balance/);
    const [revertedTx] = (await chain.public.getBlock({ blockTag: 'latest' })).transactions;
    const reverted = await chain.public.getTransactionReceipt({ hash: revertedTx! });
    expect([reverted.status, reverted.logs.length, reverted.from]).toEqual(['reverted', 0, chain.other.address.toLowerCase()]);
    const marker = await chain.transfer(usdt6, deposit[1]!, 1n);
    await seen.until(() => seen.of('transfer').length >= 1, 'the marker transfer');
    await chain.mine(1);
    const head = await chain.head();
    await seen.until(() => seen.tip() >= head, 'the head');
    expect(seen.of('transfer').map((t) => [t.txHash, t.amount])).toEqual([[marker, '0.000001']]);
  });
});
