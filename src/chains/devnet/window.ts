import type { DevnetBlock } from './types';

/**
 * The part of a devnet chain kept in memory: the canonical blocks from `base` to the head, the
 * blocks orphaned at or above `base` (so a cursor left on a dead branch finds its way back) and
 * the heights of the transactions in the canonical ones. Older blocks are final and stay in the
 * store; a chain without a store keeps everything (base 0).
 */
export class BlockWindow {
  /** Canonical blocks; blocks[i] has height base + i. Never empty. */
  private blocks: DevnetBlock[];
  private baseHeight: number;
  private readonly byHash = new Map<string, DevnetBlock>();
  private readonly txIndex = new Map<string, number>();

  /** `blocks`: canonical, ascending, contiguous, ending at the head. */
  constructor(blocks: readonly DevnetBlock[]) {
    if (blocks.length === 0) throw new Error('a devnet chain has at least its genesis block');
    this.blocks = [];
    this.baseHeight = blocks[0]!.height;
    for (const block of blocks) this.push(block);
  }

  head(): DevnetBlock {
    return this.blocks[this.blocks.length - 1]!;
  }

  /** The lowest canonical height held here; below it, ask the store. */
  base(): number {
    return this.baseHeight;
  }

  /** The canonical block at `height` when it is held here. */
  at(height: number): DevnetBlock | undefined {
    return height >= this.baseHeight ? this.blocks[height - this.baseHeight] : undefined;
  }

  /** A block held here by hash, canonical or orphaned, with whether it is canonical. */
  find(hash: string): { block: DevnetBlock; canonical: boolean } | undefined {
    const block = this.byHash.get(hash);
    return block && { block, canonical: this.at(block.height)?.hash === hash };
  }

  /** Height of the canonical block here that holds `txHash`. */
  minedHeight(txHash: string): number | undefined {
    return this.txIndex.get(txHash);
  }

  /** Appends canonical blocks; the first must extend the head. */
  append(blocks: readonly DevnetBlock[]): void {
    for (const block of blocks) {
      const head = this.head();
      if (block.height !== head.height + 1 || block.parentHash !== head.hash) throw new Error(`devnet block ${block.height} does not extend the head ${head.height}`);
      this.push(block);
    }
  }

  /** Orphans the canonical blocks above `height` (they stay findable by hash; their txs leave the index). */
  dropAbove(height: number): void {
    if (height < this.baseHeight) throw new Error(`devnet reorg below the blocks held in memory (${height} < ${this.baseHeight})`);
    for (const block of this.blocks.splice(height - this.baseHeight + 1)) {
      for (const t of block.transfers) this.txIndex.delete(t.txHash);
    }
  }

  /** Keeps the newest `keep` canonical blocks (and the orphans at or above them); forgets the rest. */
  trim(keep: number): void {
    const drop = this.blocks.length - keep;
    if (drop <= 0) return;
    for (const block of this.blocks.splice(0, drop)) {
      for (const t of block.transfers) {
        if (this.txIndex.get(t.txHash) === block.height) this.txIndex.delete(t.txHash);
      }
    }
    this.baseHeight += drop;
    for (const [hash, block] of this.byHash) if (block.height < this.baseHeight) this.byHash.delete(hash);
  }

  size(): number {
    return this.blocks.length;
  }

  private push(block: DevnetBlock): void {
    this.blocks.push(block);
    this.byHash.set(block.hash, block);
    for (const t of block.transfers) this.txIndex.set(t.txHash, block.height);
  }
}
