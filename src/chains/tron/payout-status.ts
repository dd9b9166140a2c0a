import type { PayoutStatus, SignedPayout } from '../types';
import { isEmpty, type TronNode } from './node';
import { RECEIPT_SUCCESS } from './node-types';
import { parseBlock } from './parse-block';
import type { SignedTronTransaction } from './tronweb-signer';
import { InconsistentChainError } from '../sync/errors';

/**
 * Where a stored payout stands on chain, by its transaction info (full node) against the head and
 * the solidified head:
 * - SUCCESS: mined; confirmations count from the head, but stay below `finalityDepth` until its
 *   block is solidified (final = solidified AND deep enough, as for deposits).
 * - REVERT, OUT_OF_ENERGY, any other result: reverted, once solidified (before that a reorg could
 *   still re-execute it another way, and a release would then be a double payout): pending until then.
 * - no info: `unknown` (the host sends the same transaction again), except once it is proven that
 *   it can never execute (isExpired): then `expired`, and the host signs the payout anew
 *   (signPayout with attempt + 1) under the withdrawal row's lock.
 */
export class TronPayoutStatus {
  constructor(
    private readonly node: TronNode,
    private readonly finalityDepth: number,
  ) {}

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
   * True only when the transaction can never execute: the solidified head's time is past its
   * `expiration` (java-tron accepts a transaction into a block only while its parent block is
   * older than the expiration, so such a block would be at or below the solidified head) and
   * the solidity node does not have it. Then, and only then, may a new one be signed.
   */
  async isExpired(payout: SignedPayout): Promise<boolean> {
    const expiration = expirationOf(payout);
    const solid = parseBlock(await this.node.solidNowBlock());
    if (solid === null) throw new InconsistentChainError('walletsolidity/getnowblock returned no block', {});
    if (solid.header.timestamp.getTime() <= expiration) return false;
    const solidInfo = await this.node.solidInfoById(payout.txHash);
    if (!isEmpty(solidInfo)) return false;
    const info = await this.node.infoById(payout.txHash);
    return isEmpty(info);
  }

  private async height(api: 'wallet' | 'walletsolidity'): Promise<number> {
    const block = parseBlock(await (api === 'wallet' ? this.node.nowBlock() : this.node.solidNowBlock()));
    if (block === null) throw new InconsistentChainError(`${api}/getnowblock returned no block`, {});
    return block.header.height;
  }
}

/** The transaction's expiration (ms, chain time) from meta, else from the stored transaction itself. */
function expirationOf(payout: SignedPayout): number {
  const fromMeta = Number(payout.meta.expiration);
  if (Number.isFinite(fromMeta) && fromMeta > 0) return fromMeta;
  return (JSON.parse(payout.raw) as SignedTronTransaction).raw_data.expiration;
}
