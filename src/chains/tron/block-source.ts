import type { BlockHeader, BlockSource } from '../sync/types';
import { InconsistentChainError } from '../sync/errors';
import type { UnstampedTransfer } from '../types';
import { transfersOfBlock, type BlockTransferFilter } from './block-transfers';
import type { TronTransactionInfo } from './node-types';
import type { TronNode } from './node';
import { parseBlock, type ParsedBlock } from './parse-block';

export interface TronBlockSourceOptions {
  /** A solidified head read is reused this long before asking again (finality may lag by as much). */
  readonly solidHeadMaxAgeMs: number;
  /** Blocks fetched at once while catching up. */
  readonly concurrency: number;
  /** Each solidified head read (the adapter's confirmationsAt counts with the highest). */
  readonly onSolid?: (height: number) => void;
  readonly now?: () => number;
}

/**
 * The TRON side of the block follower: per block `getblockbynum` (header, blockID, its txIDs) and
 * `gettransactioninfobyblocknum` (receipts and logs), matched in memory against the watched set, so
 * a block costs 2 HTTP calls however many addresses are watched. Blocks are cached for one step
 * (head() starts a step), so a header the follower fetched is not fetched again for its transfers.
 * Finality (finalHeight) is the solidified head: a block is final when solidified and deep enough.
 */
export class TronBlockSource implements BlockSource {
  private step = new Map<number, ParsedBlock>();
  private solid: { readonly height: number; readonly at: number } | null = null;

  constructor(
    private readonly node: TronNode,
    private readonly filter: BlockTransferFilter,
    private readonly options: TronBlockSourceOptions,
  ) {}

  async head(): Promise<number> {
    this.step = new Map();
    const head = parseBlock(await this.node.nowBlock());
    if (head === null) throw new InconsistentChainError('getnowblock returned no block', {});
    this.step.set(head.header.height, head);
    return head.header.height;
  }

  async block(height: number): Promise<BlockHeader | null> {
    return (await this.parsed(height))?.header ?? null;
  }

  async transfers(fromHeight: number, toHeight: number): Promise<UnstampedTransfer[]> {
    const heights = Array.from({ length: toHeight - fromHeight + 1 }, (_, i) => fromHeight + i);
    const out: UnstampedTransfer[] = [];
    for (let i = 0; i < heights.length; i += this.options.concurrency) {
      const chunk = await Promise.all(heights.slice(i, i + this.options.concurrency).map((h) => this.blockTransfers(h)));
      for (const transfers of chunk) out.push(...transfers);
    }
    return out;
  }

  /**
   * The solidified head, re-read only when depth alone would finalize past the one known and the
   * read is older than solidHeadMaxAgeMs: about one solidity call per few blocks, not one per step.
   */
  async finalHeight(depthFinal: number): Promise<number> {
    const now = (this.options.now ?? Date.now)();
    if (this.solid !== null && (depthFinal <= this.solid.height || now - this.solid.at < this.options.solidHeadMaxAgeMs)) return this.solid.height;
    const solid = parseBlock(await this.node.solidNowBlock());
    if (solid === null) throw new InconsistentChainError('walletsolidity/getnowblock returned no block', {});
    // Never backwards: a lagging solidity backend behind a load balancer must not un-finalize.
    this.solid = { height: Math.max(solid.header.height, this.solid?.height ?? 0), at: now };
    this.options.onSolid?.(this.solid.height);
    return this.solid.height;
  }

  private async parsed(height: number): Promise<ParsedBlock | null> {
    const cached = this.step.get(height);
    if (cached !== undefined) return cached;
    const block = parseBlock(await this.node.blockByNum(height));
    if (block !== null) this.step.set(height, block);
    return block;
  }

  private async blockTransfers(height: number): Promise<UnstampedTransfer[]> {
    const block = await this.parsed(height);
    if (block === null) throw new InconsistentChainError(`block ${height} not available yet`, { height });
    if (block.txIDs.length === 0) return [];
    const infos = await this.node.infosByBlockNum(height);
    assertInfosOfBlock(infos, block);
    return transfersOfBlock(infos, { height, hash: block.header.hash }, this.filter);
  }
}

/**
 * The infos must be exactly those of the block we hold (one per transaction, same height and time):
 * a node behind a load balancer may answer the block from one backend and the infos from another
 * that lags or sits on another branch. Matching each transfer to the blockID we hold is only sound
 * when they agree; otherwise the step is retried. An empty info list for a block with transactions
 * would silently lose payments: refused too.
 */
function assertInfosOfBlock(infos: readonly TronTransactionInfo[], block: ParsedBlock): void {
  const height = block.header.height;
  const ids = new Set(block.txIDs);
  const time = block.header.timestamp.getTime();
  if (infos.length !== ids.size) throw new InconsistentChainError(`block ${height}: ${infos.length} transaction infos for ${ids.size} transactions`, { height });
  for (const info of infos) {
    if (info.id === undefined || !ids.has(info.id) || info.blockNumber !== height || (info.blockTimeStamp !== undefined && info.blockTimeStamp !== time)) {
      throw new InconsistentChainError(`block ${height}: transaction info ${info.id ?? '?'} is not of this block`, { height, txHash: info.id ?? null });
    }
  }
}
