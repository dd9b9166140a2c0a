import type { BlockHeader, BlockSource } from '../sync/types';
import { InconsistentChainError } from '../sync/errors';
import type { UnstampedTransfer } from '../types';
import { transfersOfBlock, type BlockTransferFilter } from './block-transfers';
import type { TronTransactionInfo } from './node-types';
import type { TronNode } from './node';
import { parseBlock, type ParsedBlock } from './parse-block';

/**
 * SOLID_EVERY_BLOCKS: the solidified head is read once per this many new blocks while nothing of
 * ours waits for it: ~2,900 calls a day instead of one per block (28,800), for at most 30 s more
 * before a block with no transfer of ours counts as final. Once a block holding one of our
 * transfers is deep enough to be final, it is read at every step until that block is solidified
 * (the payment's finality is not delayed).
 */
export const SOLID_EVERY_BLOCKS = 10;

/** java-tron's limit of one getblockbylimitnext call. */
const MAX_RANGE_BLOCKS = 100;

export interface TronBlockSourceOptions {
  /** The solidified head is read again once per this many blocks (SOLID_EVERY_BLOCKS), or every step while a transfer of ours deep enough waits for it. */
  readonly solidEveryBlocks: number;
  /** Blocks fetched at once while catching up (getblockbynum fallback). */
  readonly concurrency: number;
  /** Blocks per range read at the head and in catch-up: at least a catch-up step plus the confirmations (capped at 100). */
  readonly rangeBlocks: number;
  /** A head read that was not a full range and is this recent (wall clock, ms) is reused: the next block cannot be there yet. */
  readonly headReuseMs: number;
  /** Each solidified head read (the adapter's confirmationsAt counts with the highest). */
  readonly onSolid?: (height: number) => void;
  readonly now?: () => number;
}

interface HeadRead {
  readonly blocks: ReadonlyMap<number, ParsedBlock>;
  readonly height: number;
  readonly at: number;
  /** The range came back full: the chain may be higher (catching up), never reused. */
  readonly full: boolean;
}

/**
 * The TRON side of the block follower. Blocks are read in ranges (`getblockbylimitnext`, from the
 * last block handed out, so the tip is re-read for reorg checks): one call answers the head and
 * every new block, where `getnowblock` + `getblockbynum` per block cost one call per block. Per
 * block then one `gettransactioninfobyblocknum` (receipts and logs), matched in memory against the
 * watched set: the cost never grows with watched addresses. Finality (finalHeight) is the
 * solidified head, read once per `solidEveryBlocks`. While catching up, head() answers the highest
 * block of the range read (a lower bound of the chain's head: finality only comes a step later).
 */
export class TronBlockSource implements BlockSource {
  private step = new Map<number, ParsedBlock>();
  private solid: { readonly height: number; readonly readAt: number } | null = null;
  /** The highest height transfers() was asked for: the follower's tip after its step. */
  private consumed: number | null = null;
  /** The highest block holding a transfer of ours (its finality is waited for). */
  private pendingTransfer = -1;
  private lastHead: HeadRead | null = null;

  constructor(
    private readonly node: TronNode,
    private readonly filter: BlockTransferFilter,
    private readonly options: TronBlockSourceOptions,
  ) {}

  async head(): Promise<number> {
    const now = this.now();
    const last = this.lastHead;
    if (last !== null && !last.full && now - last.at < this.options.headReuseMs) {
      this.step = new Map(last.blocks);
      return last.height;
    }
    this.step = new Map();
    // From the last block handed out for scanning, else the last head answered (just started).
    const base = this.consumed ?? last?.height ?? null;
    const read = base === null ? await this.nowBlock(now) : await this.range(base, now);
    for (const [height, block] of read.blocks) this.step.set(height, block);
    this.lastHead = read;
    return read.height;
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
    this.consumed = Math.max(this.consumed ?? toHeight, toHeight);
    for (const t of out) this.pendingTransfer = Math.max(this.pendingTransfer, t.blockHeight);
    return out;
  }

  /**
   * The solidified head, read again only when depth alone would finalize past the one known, and
   * then once per `solidEveryBlocks` of depth progress, or at every step while a block holding a
   * transfer of ours is deep enough but not solidified yet.
   */
  async finalHeight(depthFinal: number): Promise<number> {
    const known = this.solid;
    if (known !== null) {
      // A transfer of ours not solidified yet, whose block depth alone would now finalize: read at every step.
      const waiting = this.pendingTransfer > known.height && depthFinal >= this.pendingTransfer;
      const due = depthFinal >= known.readAt + (waiting ? 1 : this.options.solidEveryBlocks);
      if (depthFinal <= known.height || !due) return known.height;
    }
    const solid = parseBlock(await this.node.solidNowBlock());
    if (solid === null) throw new InconsistentChainError('walletsolidity/getnowblock returned no block', {});
    // Never backwards: a lagging solidity backend behind a load balancer must not un-finalize.
    this.solid = { height: Math.max(solid.header.height, known?.height ?? 0), readAt: depthFinal };
    this.options.onSolid?.(this.solid.height);
    return this.solid.height;
  }

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  /** No block handed out yet: the head block itself (one call). */
  private async nowBlock(now: number): Promise<HeadRead> {
    const head = parseBlock(await this.node.nowBlock());
    if (head === null) throw new InconsistentChainError('getnowblock returned no block', {});
    return { blocks: new Map([[head.header.height, head]]), height: head.header.height, at: now, full: false };
  }

  /** Blocks from `from` (the last handed out, re-read) up: the new ones and, by their count, the head. */
  private async range(from: number, now: number): Promise<HeadRead> {
    const size = Math.min(MAX_RANGE_BLOCKS, Math.max(2, this.options.rangeBlocks));
    const answer = await this.node.blocksByRange(from, from + size);
    const blocks = new Map<number, ParsedBlock>();
    for (const raw of answer) {
      const block = parseBlock(raw);
      if (block === null || block.header.height !== from + blocks.size)
        throw new InconsistentChainError(`getblockbylimitnext from ${from}: block ${from + blocks.size} missing or out of order`, { height: from + blocks.size });
      blocks.set(block.header.height, block);
    }
    // The last block handed out is on the chain (maybe replaced): a backend without it lags. Retried.
    if (blocks.size === 0) throw new InconsistentChainError(`getblockbylimitnext from ${from}: no block (a backend behind)`, { height: from });
    return { blocks, height: from + blocks.size - 1, at: now, full: blocks.size === size };
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
