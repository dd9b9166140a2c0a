import { createAddressCodec } from '../codecs';
import type { NetworkCode } from '../../domain/networks';
import type { ChainWatch } from '../types';
import { DevnetAdapter } from './adapter';
import { CountingSet, manualClock, Recorder } from './testing';

const MNEMONIC = 'test test test test test test test test test test test junk';
const opened: DevnetAdapter[] = [];
const watches: ChainWatch[] = [];

function devnet(network: NetworkCode, extra: { finalityDepth?: number } = {}): DevnetAdapter {
  const adapter = new DevnetAdapter({ network, codec: createAddressCodec(network, { mnemonic: MNEMONIC }), clock: manualClock(), blockIntervalMs: 0, ...extra });
  opened.push(adapter);
  return adapter;
}

afterEach(async () => {
  await Promise.all(watches.splice(0).map((w) => w.stop()));
  await Promise.all(opened.splice(0).map((a) => a.close()));
});

describe('devnet reorgs', () => {
  it('emits reorg with the common ancestor; the vanished transfer never comes back', async () => {
    const chain = devnet('POLYGON');
    const to = chain.deriveDepositAddress(0);
    const rec = new Recorder();
    await chain.mine(2);
    const ancestor = chain.head();
    watches.push(chain.watch({ from: { height: 0, hash: (await chain.block(0))!.hash }, watched: new CountingSet(new Set([to.toLowerCase()])), sink: rec.sink }));
    const paid = await chain.pay({ to, amount: '4' }); // block 3
    await chain.mine(1); // block 4
    await rec.until(() => rec.lastBlock() === 4);
    const orphan = (await chain.block(3))!.hash;

    const after = await chain.reorg(2);
    expect(after.head).toBe(5); // depth + 1 new blocks: the head moves forward
    await rec.until(() => rec.lastBlock() === 5);
    const fromReorg = rec.seen.slice(rec.seen.findIndex((o) => o.kind === 'reorg'));
    expect(fromReorg[0]).toEqual({ kind: 'reorg', network: 'POLYGON', commonAncestor: { height: 2, hash: ancestor.hash }, depth: 2, cursor: { height: 2, hash: ancestor.hash } });
    // The new branch 3'-5' in one step (the follower scans from the ancestor to the head).
    expect(fromReorg.slice(1).map((o) => `${o.kind}:${'height' in o ? o.height : ''}`)).toEqual(['block:5']);
    expect((await chain.block(3))!.hash).not.toBe(orphan);
    expect((await chain.block(3))!.parentHash).toBe(ancestor.hash);
    expect(rec.of('transfer').map((t) => t.txHash)).toEqual([paid.txHash]); // only the first sighting
    await chain.mine(3);
    await rec.until(() => rec.lastBlock() === 8);
    expect(rec.of('transfer')).toHaveLength(1);
  });

  it('refuses a reorg that would remove a final block (finalityDepth confirmations) or is deeper than the chain', async () => {
    const chain = devnet('TRC20', { finalityDepth: 3 });
    await expect(chain.reorg(1)).rejects.toMatchObject({ code: 'reorg_too_deep' }); // only genesis
    await chain.mine(10);
    await expect(chain.reorg(4)).rejects.toMatchObject({ code: 'reorg_too_deep', field: 'depth' });
    // Depth 3 would drop block 8, which has 3 confirmations: final (a payment in it is credited).
    await expect(chain.reorg(3)).rejects.toMatchObject({ code: 'reorg_too_deep', details: { maxDepth: 2, finalityDepth: 3 } });
    expect(chain.head().head).toBe(10);
    await expect(chain.reorg(0)).rejects.toMatchObject({ code: 'invalid_depth' });
    await expect(chain.reorg(2)).resolves.toMatchObject({ head: 11 });
  });

  it('a watch whose saved last final block is not on the chain reports ReorgBeyondFinalityError and emits nothing', async () => {
    const chain = devnet('BEP20');
    await chain.mine(6);
    const rec = new Recorder();
    const errors: Error[] = [];
    const cursor = { height: 6, hash: chain.head().hash };
    const failed = chain.watch({ from: cursor, finalized: { height: 4, hash: '0xreplaced' }, watched: new CountingSet(new Set()), sink: rec.sink, onError: (e) => errors.push(e) });
    await chain.mine(2);
    await new Promise((r) => setTimeout(r, 50));
    expect(errors).toEqual([expect.objectContaining({ name: 'ReorgBeyondFinalityError', code: 'reorg_beyond_finality' })]);
    expect(rec.seen).toEqual([]);
    await failed.stop();
    // Still on the chain: the watch goes on from the cursor, finality above the saved final block.
    const ok = new Recorder();
    watches.push(chain.watch({ from: cursor, finalized: { height: 4, hash: (await chain.block(4))!.hash }, watched: new CountingSet(new Set()), sink: ok.sink }));
    await ok.until(() => ok.lastBlock() === 8);
  });

  it('a watcher whose cursor is orphaned while it is stopped rewinds first', async () => {
    const chain = devnet('BEP20');
    await chain.mine(5);
    const cursor = { height: 5, hash: chain.head().hash };
    await chain.reorg(2);
    await chain.reorg(1); // the cursor's branch is now two reorgs away
    const rec = new Recorder();
    watches.push(chain.watch({ from: cursor, watched: new CountingSet(new Set()), sink: rec.sink }));
    await rec.until(() => rec.lastBlock() === chain.head().head);
    expect(rec.seen[0]).toEqual({
      kind: 'reorg',
      network: 'BEP20',
      commonAncestor: { height: 3, hash: (await chain.block(3))!.hash },
      depth: 2,
      cursor: { height: 3, hash: (await chain.block(3))!.hash },
    });
    expect(rec.of('block').map((b) => b.height)).toEqual([7]); // 4-7 in one step
  });
});

describe('devnet payouts', () => {
  it('signs deterministically, broadcasts idempotently, and reports confirmations', async () => {
    const chain = devnet('POLYGON');
    const request = { id: '2b7c3a52-7e0d-4c2e-9d4a-1f0e4f1f9a10', to: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', amount: '25.000000' };
    const signed = await chain.signPayout(request);
    expect(await chain.signPayout(request)).toEqual(signed);
    expect(signed.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect((await chain.signPayout({ ...request, id: 'other' })).txHash).not.toBe(signed.txHash);
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'unknown' });

    await chain.broadcastPayout(signed);
    await chain.broadcastPayout(signed);
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'pending' });

    const rec = new Recorder();
    watches.push(chain.watch({ from: { height: 0, hash: chain.head().hash }, watched: new CountingSet(new Set([request.to.toLowerCase()])), sink: rec.sink }));
    await chain.mine(1);
    await chain.broadcastPayout(signed); // already mined: no-op
    await chain.mine(2);
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'mined', blockHeight: 1, confirmations: 3 });
    expect((await chain.block(1))!.transfers).toBe(1);
    await rec.until(() => rec.lastBlock() === 3);
    // A payout is a token transfer like any other: from the hot wallet, seen if `to` is watched.
    expect(rec.of('transfer')).toEqual([expect.objectContaining({ txHash: signed.txHash, amount: '25', from: createAddressCodec('POLYGON', { mnemonic: MNEMONIC }).hotWallet().address })]);
  });

  it('a reorg drops a mined payout (unknown); rebroadcasting includes it again', async () => {
    const chain = devnet('TRC20');
    const signed = await chain.signPayout({ id: 'w-1', to: chain.deriveDepositAddress(9), amount: '1' });
    await chain.broadcastPayout(signed);
    await chain.mine(1);
    expect(await chain.payoutStatus(signed)).toMatchObject({ state: 'mined', blockHeight: 1 });
    await chain.reorg(1);
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'unknown' });
    await chain.broadcastPayout(signed);
    await chain.mine(1);
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'mined', blockHeight: 3, confirmations: 1 });
  });

  it('refuses tampered or foreign transactions and invalid requests', async () => {
    const chain = devnet('POLYGON');
    const signed = await chain.signPayout({ id: 'w-2', to: chain.deriveDepositAddress(1), amount: '1' });
    const tampered = { ...signed, raw: signed.raw.replace(/31/g, '39') };
    await expect(chain.broadcastPayout(tampered)).rejects.toMatchObject({ code: 'payout_invalid' });
    await expect(devnet('ARBITRUM').broadcastPayout(signed)).rejects.toMatchObject({ code: 'payout_invalid' });
    await expect(chain.signPayout({ id: 'w-3', to: 'T-nope', amount: '1' })).rejects.toMatchObject({ code: 'invalid_address' });
    await expect(chain.signPayout({ id: 'w-3', to: chain.deriveDepositAddress(1), amount: '0.0000001' })).rejects.toMatchObject({ code: 'amount_precision' });
  });
});
