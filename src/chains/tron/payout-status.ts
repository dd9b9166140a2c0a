import type { LandedPayout, PayoutStatus, SignedPayout } from '../types';
import { InconsistentChainError } from '../sync/errors';
import { refBlockHeight } from './expiry';
import { TronExpiryProof, type ExpiringTransaction } from './expiry-proof';
import { isEmpty, type TronNode } from './node';
import { RECEIPT_SUCCESS } from './node-types';
import { parseBlock } from './parse-block';
import type { SignedTronTransaction } from './tronweb-signer';

/**
 * Where a stored payout stands on chain, by its transaction info (full node) against the head and
 * the solidified head:
 * - SUCCESS: mined; confirmations count from the head, but stay below `finalityDepth` until its
 *   block is solidified (final = solidified AND deep enough, as for deposits).
 * - REVERT, OUT_OF_ENERGY, any other result: reverted, once solidified (before that a reorg could
 *   still re-execute it another way, and a release would then be a double payout): pending until then.
 * - no info: `unknown` (the host sends the same transaction again), except once it is proven that
 *   it can never execute (TronExpiryProof: the solidified blocks of its whole window read, it is in
 *   none): then `expired`, and the host signs the payout anew (signPayout with attempt + 1) under
 *   the withdrawal row's lock. A `{}` answer alone never makes `expired`: a lagging backend says so
 *   for a transaction it has not seen.
 */
export class TronPayoutStatus {
  private readonly proof: TronExpiryProof;

  constructor(
    private readonly node: TronNode,
    private readonly finalityDepth: number,
  ) {
    this.proof = new TronExpiryProof(node);
  }

  async status(payout: SignedPayout): Promise<PayoutStatus> {
    const info = await this.node.infoById(payout.txHash);
    if (isEmpty(info) || info.blockNumber === undefined) return (await this.isExpired(payout)) ? { state: 'expired' } : { state: 'unknown' };
    const [head, solid] = await Promise.all([this.height('wallet'), this.height('walletsolidity')]);
    const solidified = info.blockNumber <= solid;
    if (info.receipt?.result === RECEIPT_SUCCESS) {
      const depth = Math.max(1, head - info.blockNumber + 1);
      return { state: 'mined', blockHeight: info.blockNumber, confirmations: solidified ? depth : Math.min(depth, this.finalityDepth - 1) };
    }
    return solidified ? { state: 'reverted', blockHeight: info.blockNumber } : { state: 'pending' };
  }

  /**
   * An expired transaction of a payout, looked up on the solidity node (final only): where it
   * landed, or null (not there, or a backend that has not seen it: asked again at the next round).
   */
  async landed(txHash: string): Promise<LandedPayout | null> {
    const info = await this.node.solidInfoById(txHash);
    if (isEmpty(info) || info.blockNumber === undefined) return null;
    return { blockHeight: info.blockNumber, reverted: info.receipt?.result !== RECEIPT_SUCCESS };
  }

  /** True only when the transaction can never execute (TronExpiryProof). Then, and only then, may a new one be signed. */
  async isExpired(payout: SignedPayout): Promise<boolean> {
    return this.proof.neverExecutes(await this.expiring(payout));
  }

  /** The payout's txID, reference block (meta.refBlock; for payouts signed before it was stored: from ref_block_bytes) and expiration. */
  private async expiring(payout: SignedPayout): Promise<ExpiringTransaction> {
    const tx = JSON.parse(payout.raw) as SignedTronTransaction;
    const fromMeta = Number(payout.meta.expiration);
    const expiration = Number.isFinite(fromMeta) && fromMeta > 0 ? fromMeta : tx.raw_data.expiration;
    const stored = Number(payout.meta.refBlock);
    if (Number.isInteger(stored) && stored >= 0) return { txID: payout.txHash, refBlock: stored, expiration };
    const refBlock = refBlockHeight(tx.raw_data.ref_block_bytes, await this.height('walletsolidity'));
    return { txID: payout.txHash, refBlock, expiration, refBlockHash: tx.raw_data.ref_block_hash };
  }

  private async height(api: 'wallet' | 'walletsolidity'): Promise<number> {
    const block = parseBlock(await (api === 'wallet' ? this.node.nowBlock() : this.node.solidNowBlock()));
    if (block === null) throw new InconsistentChainError(`${api}/getnowblock returned no block`, {});
    return block.header.height;
  }
}
