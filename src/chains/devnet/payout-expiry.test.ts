import { createAddressCodec } from '../codecs';
import type { NetworkCode } from '../../domain/networks';
import { PAYOUT_EXPIRED_CODE } from '../types';
import { DevnetAdapter } from './adapter';
import { manualClock, type ManualClock } from './testing';

const MNEMONIC = 'test test test test test test test test test test test junk';
const TTL = 60_000;
const opened: DevnetAdapter[] = [];

function devnet(network: NetworkCode, clock: ManualClock = manualClock()): { chain: DevnetAdapter; clock: ManualClock } {
  const chain = new DevnetAdapter({ network, codec: createAddressCodec(network, { mnemonic: MNEMONIC }), clock, blockIntervalMs: 0, finalityDepth: 3 });
  opened.push(chain);
  return { chain, clock };
}

afterEach(async () => {
  await Promise.all(opened.splice(0).map((a) => a.close()));
});

describe('devnet payout expiry (TRC20, TON, SOLANA follow their chains; EVM networks never expire)', () => {
  it('TRC20: too late to send is refused; `expired` only once a final block is past the validity', async () => {
    const { chain, clock } = devnet('TRC20');
    const signed = await chain.signPayout({ id: 'w-late', to: chain.deriveDepositAddress(1), amount: '5' });
    expect(signed.meta.validUntilMs).toBe(clock.now().getTime() + TTL);
    clock.advance(TTL + 1);
    await expect(chain.broadcastPayout(signed)).rejects.toMatchObject({ code: PAYOUT_EXPIRED_CODE });
    // The head is still stamped before the validity: a block could, as far as the chain shows, still hold it.
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'unknown' });
    await chain.mine(2); // blocks stamped after it, but not final yet (finality 3): a reorg could replace them
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'unknown' });
    await chain.mine(1); // the first block past the validity is final now
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'expired' });
  });

  it('a broadcast payout left in the mempool past its validity is never included, then reported expired', async () => {
    const { chain, clock } = devnet('TRC20');
    const to = chain.deriveDepositAddress(2);
    const signed = await chain.signPayout({ id: 'w-stuck', to, amount: '5' });
    await chain.broadcastPayout(signed);
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'pending' });
    clock.advance(TTL + 1);
    await chain.mine(3);
    for (let h = 1; h <= 3; h++) expect((await chain.block(h))!.transfers).toBe(0);
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'expired' });
    await chain.mine(1);
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'expired' });
  });

  it('a payout that reached a block is `mined`, never `expired`, however late it is', async () => {
    const { chain, clock } = devnet('TRC20');
    const signed = await chain.signPayout({ id: 'w-mined', to: chain.deriveDepositAddress(3), amount: '5' });
    await chain.broadcastPayout(signed);
    await chain.mine(1);
    clock.advance(10 * TTL);
    await chain.mine(5);
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'mined', blockHeight: 1, confirmations: 6 });
    await chain.broadcastPayout(signed); // mined: a no-op, not a refusal
  });

  it('a new attempt is a new transaction; TON and SOLANA (no reorgs) are expired once the head is past it', async () => {
    for (const network of ['TON', 'SOLANA'] as const) {
      const { chain, clock } = devnet(network);
      const to = network === 'TON' ? chain.sharedDepositAddress() : chain.deriveDepositAddress(4);
      const first = await chain.signPayout({ id: 'w-again', to, amount: '5' });
      clock.advance(TTL + 1);
      await chain.mine(1);
      expect(await chain.payoutStatus(first)).toEqual({ state: 'expired' });
      const second = await chain.signPayout({ id: 'w-again', to, amount: '5', attempt: 1 });
      expect(second.txHash).not.toBe(first.txHash);
      expect(second.meta).toMatchObject({ attempt: 1 });
      await chain.broadcastPayout(second);
      await chain.mine(1);
      expect(await chain.payoutStatus(second)).toMatchObject({ state: 'mined', blockHeight: 2 });
    }
  });

  it('EVM networks: no validity, a payout waits for its block forever (nonce semantics: bumped, never expired)', async () => {
    const { chain, clock } = devnet('BEP20');
    const signed = await chain.signPayout({ id: 'w-evm', to: chain.deriveDepositAddress(5), amount: '5' });
    expect(signed.meta.validUntilMs).toBeUndefined();
    clock.advance(100 * TTL);
    await chain.mine(5);
    expect(await chain.payoutStatus(signed)).toEqual({ state: 'unknown' });
    await chain.broadcastPayout(signed);
    await chain.mine(1);
    expect(await chain.payoutStatus(signed)).toMatchObject({ state: 'mined', blockHeight: 6 });
  });
});
