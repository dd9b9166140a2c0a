import { ValidationError } from '../../domain/errors';
import type { Clock } from '../../domain/clock';
import type { ChainFamily, NetworkCode } from '../../domain/networks';
import type { ChainCursor } from '../types';
import { deterministicBlockHash, randomBlockHash } from './hashes';
import type { DevnetJournal } from './journal';
import type { DevnetBlock, DevnetTransfer, JournalEntry, PendingTransfer } from './types';

export interface DevnetChainOptions {
  readonly network: NetworkCode;
  readonly family: ChainFamily;
  readonly clock: Clock;
  /**
   * Confirmations that make a block final (the daemon passes the network's required confirmations):
   * a block with finalityDepth confirmations (head - height + 1) is final, the same rule the invoice
   * uses to credit a payment, so reorg() never removes a block a payment could be credited in.
   */
  readonly finalityDepth: number;
  readonly journal?: DevnetJournal;
  /** Journal entries to replay (DevnetJournal.open). */
  readonly replay?: readonly JournalEntry[];
}

export type TxLocation = { readonly state: 'mined'; readonly height: number } | { readonly state: 'pending' } | null;

/**
 * One simulated chain: a canonical block list (index = height, genesis at 0), every block ever seen
 * by hash (orphans too, so a cursor on a dead branch finds its way back), a mempool and a tx index.
 * All mutations are synchronous and journaled before they return; listeners are told afterwards.
 */
export class DevnetChain {
  readonly network: NetworkCode;
  readonly finalityDepth: number;
  private readonly blocks: DevnetBlock[] = [];
  private readonly byHash = new Map<string, DevnetBlock>();
  private readonly txIndex = new Map<string, number>();
  private readonly mempool = new Map<string, PendingTransfer>();
  private readonly listeners = new Set<() => void>();

  constructor(private readonly options: DevnetChainOptions) {
    this.network = options.network;
    this.finalityDepth = options.finalityDepth;
    for (const entry of options.replay ?? []) this.apply(entry);
    if (this.blocks.length === 0) {
      const genesis = { height: 0, hash: deterministicBlockHash(options.family, `chainpay-devnet:${this.network}:genesis`), parentHash: deterministicBlockHash(options.family, ''), timestamp: options.clock.now().getTime(), transfers: [] };
      this.commit([{ type: 'block', block: genesis }]);
    }
  }

  head(): DevnetBlock {
    return this.blocks[this.blocks.length - 1]!;
  }

  blockAt(height: number): DevnetBlock | undefined {
    return this.blocks[height];
  }

  /** The highest canonical block on the cursor's branch; genesis when the hash was never seen here. */
  commonAncestor(cursor: ChainCursor): ChainCursor {
    let block = this.byHash.get(cursor.hash);
    while (block && this.blocks[block.height]?.hash !== block.hash) block = this.byHash.get(block.parentHash);
    const ancestor = block ?? this.blocks[0]!;
    return { height: ancestor.height, hash: ancestor.hash };
  }

  /** Mines `count` blocks; the first one takes `transfers` and then the whole mempool. */
  mine(count: number, transfers: readonly PendingTransfer[] = []): DevnetBlock {
    const entries: JournalEntry[] = [];
    let parent = this.head();
    for (let i = 0; i < count; i++) {
      const included = i === 0 ? [...transfers, ...this.mempool.values()] : [];
      parent = this.nextBlock(parent, included);
      entries.push({ type: 'block', block: parent });
    }
    this.commit(entries);
    return this.head();
  }

  /**
   * Drops the last `depth` blocks (their transactions vanish, they are not re-included) and mines
   * depth + 1 empty blocks on a new branch. Refused when it reaches a final block: the lowest dropped
   * block has `depth` confirmations, so depth >= finalityDepth would remove a final (credited) one.
   */
  reorg(depth: number): DevnetBlock {
    if (!Number.isInteger(depth) || depth < 1) throw new ValidationError('invalid_depth', 'reorg depth must be a positive integer', 'depth');
    const head = this.head().height;
    if (depth >= this.finalityDepth || depth > head) {
      const max = Math.min(this.finalityDepth - 1, head);
      throw new ValidationError(
        'reorg_too_deep',
        `reorg depth ${depth} would remove a final block: a block with ${this.finalityDepth} confirmations is final (head ${head}); the deepest allowed reorg is ${max}`,
        'depth',
        { depth, finalityDepth: this.finalityDepth, head, maxDepth: max },
      );
    }
    const entries: JournalEntry[] = [{ type: 'reorg', depth }];
    let parent = this.blocks[head - depth]!;
    for (let i = 0; i <= depth; i++) {
      parent = this.nextBlock(parent, []);
      entries.push({ type: 'block', block: parent });
    }
    this.commit(entries);
    return this.head();
  }

  /** Queues a transfer for the next mined block (payout broadcast). Idempotent per tx hash. */
  submit(transfer: PendingTransfer): void {
    if (this.locate(transfer.txHash)) return;
    this.commit([{ type: 'mempool', transfer }]);
  }

  locate(txHash: string): TxLocation {
    const height = this.txIndex.get(txHash);
    if (height !== undefined) return { state: 'mined', height };
    return this.mempool.has(txHash) ? { state: 'pending' } : null;
  }

  /** Called after every change (new blocks, reorg, mempool); returns an unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every block gets a fresh random hash, so a replacement branch never repeats an orphan's hash. */
  private nextBlock(parent: DevnetBlock, transfers: readonly PendingTransfer[]): DevnetBlock {
    return {
      height: parent.height + 1,
      hash: randomBlockHash(this.options.family),
      parentHash: parent.hash,
      timestamp: Math.max(parent.timestamp, this.options.clock.now().getTime()),
      transfers: transfers.map((t, eventIndex): DevnetTransfer => ({ ...t, eventIndex })),
    };
  }

  private commit(entries: readonly JournalEntry[]): void {
    this.options.journal?.append(entries);
    for (const entry of entries) this.apply(entry);
    for (const listener of [...this.listeners]) listener();
  }

  private apply(entry: JournalEntry): void {
    if (entry.type === 'mempool') {
      this.mempool.set(entry.transfer.txHash, entry.transfer);
    } else if (entry.type === 'reorg') {
      for (const block of this.blocks.splice(this.blocks.length - entry.depth)) {
        for (const t of block.transfers) this.txIndex.delete(t.txHash);
      }
    } else {
      const { block } = entry;
      if (block.height !== this.blocks.length || (block.height > 0 && block.parentHash !== this.head().hash)) {
        throw new Error(`devnet ${this.network}: block ${block.height} does not extend the head`);
      }
      this.blocks.push(block);
      this.byHash.set(block.hash, block);
      for (const t of block.transfers) {
        this.txIndex.set(t.txHash, block.height);
        this.mempool.delete(t.txHash);
      }
    }
  }
}
