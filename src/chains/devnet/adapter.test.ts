import { ConnectionException } from '@mikro-orm/core';
import { createAddressCodec } from '../codecs';
import { NETWORK_CODES, NETWORK_FACTS, type NetworkCode } from '../../domain/networks';
import type { ChainWatch, WatchedAddresses } from '../types';
import { DevnetAdapter } from './adapter';
import { CountingSet, eventually, manualClock, Recorder } from './testing';

const MNEMONIC = 'test test test test test test test test test test test junk';

function devnet(network: NetworkCode, extra: { finalityDepth?: number; retryDelayMs?: number } = {}): DevnetAdapter {
  return new DevnetAdapter({ network, codec: createAddressCodec(network, { mnemonic: MNEMONIC }), clock: manualClock(), blockIntervalMs: 0, ...extra });
}

function watchedOf(adapter: DevnetAdapter, ...addresses: string[]): WatchedAddresses {
  return new CountingSet(new Set(addresses.map((a) => adapter.normalizeAddress(a))));
}

describe('DevnetAdapter: pay and watch', () => {
  const watches: ChainWatch[] = [];
  afterEach(async () => {
    await Promise.all(watches.splice(0).map((w) => w.stop()));
  });

  it('emits the transfer, then its block, for a USDT payment to a watched address', async () => {
    const chain = devnet('POLYGON');
    const to = chain.deriveDepositAddress(0);
    const rec = new Recorder();
    watches.push(chain.watch({ from: null, watched: watchedOf(chain, to), sink: rec.sink }));
    await rec.until((s) => s.length === 1); // first run starts at the head (genesis here)
    expect(rec.seen[0]).toMatchObject({ kind: 'block', network: 'POLYGON', height: 0 });

    const paid = await chain.pay({ to, amount: '10.50' });
    expect(paid).toEqual({ txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), blockHeight: 1 });
    await rec.until((s) => s.some((o) => o.kind === 'block' && o.height === 1));
    // The transfer comes before its block: the block commits the cursor, so a crash in between
    // replays the block with its transfers instead of skipping them.
    const [transfer, block] = rec.seen.slice(1);
    expect(block).toMatchObject({ kind: 'block', height: 1, hash: chain.head().hash, timestamp: expect.any(Date) });
    expect(transfer).toEqual({
      kind: 'transfer',
      network: 'POLYGON',
      txHash: paid.txHash,
      eventIndex: 0,
      blockHeight: 1,
      blockHash: chain.head().hash,
      from: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      to: to.toLowerCase(),
      memo: null,
      amount: '10.5',
      blockTime: (block as { timestamp: Date }).timestamp, // its block's time: "paid in time" is judged by it
      confirmations: 1, // counted by the family at the block it comes with
      final: false,
    });
    expect(rec.of('block')[1]!.parentHash).toBe(rec.of('block')[0]!.hash);
  });

  it('ignores the look-alike token and unwatched addresses, but still streams their blocks', async () => {
    const chain = devnet('TRC20');
    const mine = chain.deriveDepositAddress(0);
    const other = chain.deriveDepositAddress(1);
    const rec = new Recorder();
    const watched = new CountingSet(new Set([chain.normalizeAddress(mine)]));
    watches.push(chain.watch({ from: { height: 0, hash: chain.head().hash }, watched, sink: rec.sink }));
    const fake = await chain.pay({ to: mine, amount: '5', token: 'fake' });
    await chain.pay({ to: other, amount: '5' });
    const real = await chain.pay({ to: mine, amount: '7', from: other });
    await rec.until(() => rec.lastBlock() === 3);
    expect(fake.txHash).toMatch(/^[0-9a-f]{64}$/); // TRON: 64 hex, no 0x
    expect(rec.of('transfer')).toEqual([expect.objectContaining({ txHash: real.txHash, to: mine, from: other, amount: '7' })]);
    // One block per step: per height when it sees each at once, per range when it catches up.
    expect(rec.lastBlock()).toBe(3);
    expect(watched.lookups).toBe(2); // one Set lookup per USDT transfer; the fake token never reaches it
  });

  it('carries the TON memo to the shared address and ignores other TON addresses', async () => {
    const chain = devnet('TON');
    await chain.init();
    const shared = chain.sharedDepositAddress();
    const rec = new Recorder();
    watches.push(chain.watch({ from: { height: 0, hash: chain.head().hash }, watched: new CountingSet(new Set()), sink: rec.sink }));
    const paid = await chain.pay({ to: shared, amount: '3.25', memo: 'inv-42' });
    await chain.pay({ to: 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs', amount: '1', memo: 'inv-42' });
    await chain.pay({ to: shared, amount: '1', memo: '' }); // no comment: still observed, memo null
    await rec.until(() => rec.lastBlock() === 3);
    expect(rec.of('transfer')).toEqual([
      expect.objectContaining({ txHash: paid.txHash, to: chain.normalizeAddress(shared), memo: 'inv-42', amount: '3.25' }),
      expect.objectContaining({ to: chain.normalizeAddress(shared), memo: null, amount: '1' }),
    ]);
    expect(paid.txHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('drops memos on families without one and uses Solana-shaped hashes', async () => {
    const chain = devnet('SOLANA');
    const to = chain.deriveDepositAddress(0);
    const rec = new Recorder();
    watches.push(chain.watch({ from: { height: 0, hash: chain.head().hash }, watched: watchedOf(chain, to), sink: rec.sink }));
    const paid = await chain.pay({ to, amount: '1', memo: 'ignored' });
    await rec.until((s) => s.some((o) => o.kind === 'transfer'));
    expect(paid.txHash).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,88}$/);
    expect(rec.of('transfer')[0]).toMatchObject({ memo: null, to });
  });

  it('refuses bad payments: precision beyond the token, zero, invalid addresses', async () => {
    const tron = devnet('TRC20');
    const to = tron.deriveDepositAddress(0);
    await expect(tron.pay({ to, amount: '1.1234567' })).rejects.toMatchObject({ code: 'amount_precision' });
    await expect(tron.pay({ to, amount: '0' })).rejects.toMatchObject({ code: 'invalid_amount' });
    await expect(tron.pay({ to, amount: '-1' })).rejects.toMatchObject({ code: 'invalid_amount' });
    await expect(tron.pay({ to: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', amount: '1' })).rejects.toMatchObject({ code: 'invalid_address', field: 'to' });
    await expect(tron.pay({ to, amount: '1', from: 'nope' })).rejects.toMatchObject({ code: 'invalid_address', field: 'from' });
    expect(tron.head().head).toBe(0); // nothing was mined
    const bsc = devnet('BEP20');
    await expect(bsc.pay({ to: bsc.deriveDepositAddress(0), amount: '1.123456789012345678' })).resolves.toMatchObject({ blockHeight: 1 });
  });

  it('emits finalize for the block with finalityDepth confirmations, and catches up from a cursor', async () => {
    const chain = devnet('ARBITRUM', { finalityDepth: 2 });
    await chain.mine(5);
    const rec = new Recorder();
    watches.push(chain.watch({ from: { height: 1, hash: (await chain.block(1))!.hash }, watched: new CountingSet(new Set()), sink: rec.sink }));
    await rec.until(() => rec.lastBlock() === 5);
    // Catch-up as on a live chain: the final range 2-4 in one step (its end headers only, so the
    // highest known block with 2 confirmations is 2), then block 5 with every header.
    expect(rec.seen.map((o) => `${o.kind}:${'height' in o ? o.height : ''}`)).toEqual(['block:4', 'finalize:2', 'block:5', 'finalize:4']);
    await chain.mine(1);
    await rec.until(() => rec.lastBlock() === 6);
    expect(rec.seen.slice(4).map((o) => `${o.kind}:${'height' in o ? o.height : ''}`)).toEqual(['block:6', 'finalize:5']);
  });

  it('one watch at a time; nothing is emitted after stop()', async () => {
    const chain = devnet('BEP20');
    const rec = new Recorder();
    const watch = chain.watch({ from: null, watched: new CountingSet(new Set()), sink: rec.sink });
    expect(() => chain.watch({ from: null, watched: new CountingSet(new Set()), sink: rec.sink })).toThrow(/already/);
    await rec.until((s) => s.length === 1);
    await watch.stop();
    await chain.mine(3);
    await new Promise((r) => setTimeout(r, 20));
    expect(rec.seen).toHaveLength(1);
    const again = chain.watch({ from: { height: 0, hash: rec.of('block')[0]!.hash }, watched: new CountingSet(new Set()), sink: rec.sink });
    watches.push(again);
    await rec.until(() => rec.lastBlock() === 3);
    expect(again.head()).toBe(3);
  });

  it('retries a step whose sink failed (the database away: a retryable class), after reporting the error', async () => {
    const chain = devnet('POLYGON', { retryDelayMs: 5 });
    const to = chain.deriveDepositAddress(0);
    const rec = new Recorder();
    const errors: Error[] = [];
    let failOnce = true;
    const sink = async (o: Parameters<typeof rec.sink>[0]): Promise<void> => {
      if (o.kind === 'transfer' && failOnce) {
        failOnce = false;
        throw new ConnectionException(Object.assign(new Error('db down'), { code: '08006' }));
      }
      await rec.sink(o);
    };
    watches.push(chain.watch({ from: { height: 0, hash: chain.head().hash }, watched: watchedOf(chain, to), sink, onError: (e) => errors.push(e) }));
    await chain.pay({ to, amount: '2' });
    await rec.until((s) => s.some((o) => o.kind === 'block'));
    expect(errors.map((e) => e.message)).toEqual(['db down']);
    // The failed transfer is delivered again, and the block (which commits the cursor) only after it.
    expect(rec.seen.map((o) => o.kind)).toEqual(['transfer', 'block']);
  });

  it('scales: 100,000 watched addresses cost one lookup per transfer and no iteration', async () => {
    const chain = devnet('BEP20');
    const set = new Set<string>();
    for (let i = 0; i < 100_000; i++) set.add(`0x${i.toString(16).padStart(40, 'a')}`);
    const target = `0x${(99_999).toString(16).padStart(40, 'a')}`.toUpperCase().replace('0X', '0x');
    const watched = new CountingSet(set);
    const rec = new Recorder();
    watches.push(chain.watch({ from: { height: 0, hash: chain.head().hash }, watched, sink: rec.sink }));
    await chain.mine(50);
    await chain.pay({ to: target, amount: '1' });
    await rec.until(() => rec.lastBlock() === 51);
    expect(rec.of('transfer')).toHaveLength(1);
    expect(watched.lookups).toBe(1);
  });

  it('mines empty blocks on the clock once init() ran, and stops on close()', async () => {
    const clock = manualClock();
    const chain = new DevnetAdapter({ network: 'POLYGON', codec: createAddressCodec('POLYGON', { mnemonic: MNEMONIC }), clock, blockIntervalMs: 1000 });
    clock.advance(5000);
    expect(chain.head().head).toBe(0); // not before init()
    await chain.init();
    clock.advance(1000);
    await eventually(() => chain.head().head === 1);
    // The next block is timed from the end of the last one's write: never two in flight.
    clock.advance(1000);
    await eventually(() => chain.head().head === 2);
    await chain.close();
    clock.advance(5000);
    await new Promise((r) => setTimeout(r, 20));
    expect(chain.head().head).toBe(2);
    await expect(chain.mine(1)).rejects.toThrow(/closed/);
  });

  it('refuses a bad mine count', async () => {
    await expect(devnet('TON').mine(0)).rejects.toMatchObject({ code: 'invalid_blocks' });
  });

  it('links carry the devnet token and chain id, never mainnet USDT: a real wallet cannot pay them', async () => {
    const amount = { amount: '1.5', memo: null };
    const bsc = devnet('BEP20');
    expect(bsc.paymentLink({ address: bsc.deriveDepositAddress(0), ...amount })).toBe(
      'ethereum:0x790a20263ECcFcabec396279bD6708b5c4F3ad6e@2100000056/transfer?address=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266&uint256=1500000000000000000',
    );
    expect(devnet('POLYGON').paymentLink({ address: bsc.deriveDepositAddress(0), ...amount })).toBe(
      'ethereum:0x30A76416337482dBeA50a728d0c2Bb95230fA6a7@2100000137/transfer?address=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266&uint256=1500000',
    );
    expect(devnet('ARBITRUM').paymentLink({ address: bsc.deriveDepositAddress(0), ...amount })).toMatch(/^ethereum:0x900b408C95c2763F3F457CB087e597e921279b16@2100042161\/transfer\?/);
    const tron = devnet('TRC20');
    expect(tron.paymentLink({ address: tron.deriveDepositAddress(0), ...amount })).toBe(`tron:${tron.deriveDepositAddress(0)}?token=TGdqt9pjrY4Nve1TaLswfjfbfvyifyS7SS&amount=1.5`);
    const ton = devnet('TON');
    expect(ton.paymentLink({ address: ton.sharedDepositAddress(), amount: '1.5', memo: 'inv-1' })).toBe(
      `ton://transfer/${ton.sharedDepositAddress()}?jetton=EQDOaXNp0XFHOKctTC9RzPHe0NOiasd_v-Sp3NLvnSopJ2Dm&amount=1500000&text=inv-1`,
    );
    const sol = devnet('SOLANA');
    expect(sol.paymentLink({ address: sol.deriveDepositAddress(0), ...amount })).toBe(`solana:${sol.deriveDepositAddress(0)}?amount=1.5&spl-token=AvYoSedFZBsz5ayJ8tArkgCKdZaNJMmBQRT3oxmJiv4v`);
    for (const network of NETWORK_CODES) {
      const chain = devnet(network);
      const facts = NETWORK_FACTS[network];
      const link = chain.paymentLink({ address: network === 'TON' ? chain.sharedDepositAddress() : chain.deriveDepositAddress(0), ...amount });
      expect(link.toLowerCase()).not.toContain(facts.mainnetToken.toLowerCase());
      if (facts.chainId !== undefined) expect(link).not.toContain(`@${facts.chainId}/`);
      expect(chain.isValidAddress(chain.tokenContract)).toBe(true); // a well-formed id of the family
      expect(chain.tokenDecimals).toBe(facts.tokenDecimals); // the real precision
      expect(chain.mode).toBe('devnet');
      // What the watch counts is that token: a devnet payment is seen, under the devnet id.
      const rec = new Recorder();
      const to = network === 'TON' ? chain.sharedDepositAddress() : chain.deriveDepositAddress(0);
      await chain.init();
      watches.push(chain.watch({ from: { height: 0, hash: chain.head().hash }, watched: watchedOf(chain, to), sink: rec.sink }));
      await chain.pay({ to, amount: '1', memo: 'm' });
      await rec.until(() => rec.of('transfer').length === 1);
    }
  });

  it('refuses the mainnet USDT id as a devnet token', () => {
    for (const network of NETWORK_CODES) {
      const codec = createAddressCodec(network, { mnemonic: MNEMONIC });
      expect(() => new DevnetAdapter({ network, codec, clock: manualClock(), blockIntervalMs: 0, tokenContract: NETWORK_FACTS[network].mainnetToken })).toThrow(/must not be mainnet USDT/);
    }
    // EVM ids in another letter case are the same contract.
    expect(
      () =>
        new DevnetAdapter({
          network: 'POLYGON',
          codec: createAddressCodec('POLYGON', { mnemonic: MNEMONIC }),
          clock: manualClock(),
          blockIntervalMs: 0,
          tokenContract: NETWORK_FACTS.POLYGON.mainnetToken.toLowerCase(),
        }),
    ).toThrow(/must not be mainnet USDT/);
  });
});
