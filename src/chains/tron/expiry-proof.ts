import { ChainSyncError } from '../sync/errors';
import type { TronNode } from './node';
import { parseBlock, type ParsedBlock } from './parse-block';

/** Blocks per walletsolidity/getblockbylimitnext call (java-tron's limit): a 5-minute window is 2 calls. */
const RANGE = 100;

/** What the proof needs of a stored payout: its txID, reference block and expiration (ms of chain time). */
export interface ExpiringTransaction {
  readonly txID: string;
  readonly refBlock: number;
  readonly expiration: number;
  /** When refBlock was derived (not stored): its ref_block_hash, checked against the block read there. */
  readonly refBlockHash?: string;
}

/**
 * A solidified block of the expiry window could not be read as it must be (`{}` from a backend that
 * has not seen it yet, a gap in the chain): the absence is not proven, so nothing is re-signed. Retried.
 */
export class TronExpiryUnprovenError extends ChainSyncError {
  override readonly name = 'TronExpiryUnprovenError';
  readonly code = 'payout_expiry_unproven';
  readonly retryable = true;
  constructor(txID: string, reason: string, height: number) {
    super(`expiry of ${txID} not proven: ${reason}`, { txHash: txID, height });
  }
}

/**
 * Proves positively that a signed TRON transaction can never execute. java-tron puts a transaction
 * into block B only while B's parent is older than its `expiration` (and TAPOS needs its reference
 * block R below), so every block that could hold it lies in R+1 .. K, K the first block whose time is
 * at or past `expiration`. Proof: the solidified head is past `expiration` (so K is irreversible), and
 * the solidified blocks R .. K, read in ranges of 100, chain by parentHash and none lists the txID.
 *
 * An answer saying "not found" is never taken as absence: a load-balanced provider (TronGrid) has
 * backends out of sync that answer `{}` for a transaction or block they have not seen yet. Such an
 * answer for a block of the window stops the proof (TronExpiryUnprovenError), and the payout is not
 * signed anew. A proof, once made, is remembered (solidified blocks do not change).
 */
export class TronExpiryProof {
  private readonly proven = new Set<string>();

  constructor(private readonly node: TronNode) {}

  /** true: it can never execute (proven); false: not yet past its expiration on the solidified chain. */
  async neverExecutes(tx: ExpiringTransaction): Promise<boolean> {
    if (this.proven.has(tx.txID)) return true;
    const solid = parseBlock(await this.node.solidNowBlock());
    if (solid === null || solid.header.timestamp.getTime() <= tx.expiration) return false;
    let parent: ParsedBlock | null = null;
    for (let start = tx.refBlock; start <= solid.header.height; start += RANGE) {
      const end = Math.min(start + RANGE, solid.header.height + 1);
      const blocks = (await this.node.solidBlocksByRange(start, end)).map(parseBlock);
      for (let height = start; height < end; height++) {
        const block = blocks[height - start] ?? null;
        if (block === null || block.header.height !== height) throw new TronExpiryUnprovenError(tx.txID, `solidified block ${height} not served`, height);
        if (height === tx.refBlock && tx.refBlockHash !== undefined && block.header.hash.slice(16, 32) !== tx.refBlockHash) {
          throw new TronExpiryUnprovenError(tx.txID, `block ${height} is not the reference block`, height);
        }
        if (parent !== null && block.header.parentHash !== parent.header.hash) throw new TronExpiryUnprovenError(tx.txID, `block ${height} does not follow ${height - 1}`, height);
        if (height > tx.refBlock && block.txIDs.includes(tx.txID)) return false; // there it is: the status reads it from its info
        if (block.header.timestamp.getTime() >= tx.expiration) {
          this.proven.add(tx.txID);
          return true;
        }
        parent = block;
      }
    }
    // The solidified head is past expiration, so the loop ends at K at the latest.
    throw new TronExpiryUnprovenError(tx.txID, 'the solidified chain ended before the expiration', solid.header.height);
  }
}
