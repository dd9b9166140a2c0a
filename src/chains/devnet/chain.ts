import { ValidationError } from '../../domain/errors';
import { formatAmount, toDecimal } from '../../domain/decimal';
import type { Clock } from '../../domain/clock';
import type { ChainFamily, NetworkCode } from '../../domain/networks';
import type { BlockRef } from '../types';
import { deterministicBlockHash, randomBlockHash } from './hashes';
import { DevnetHeadMovedError, type BlockHeader, type ChainExtension, type DevnetChainStore, type StoredChain, type TokenFlow, type TokenFlowQuery } from './store';
import type { DevnetBlock, DevnetTransfer, PendingTransfer } from './types';
import { BlockWindow } from './window';

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
}

export interface StoredChainOptions extends DevnetChainOptions {
  readonly store: DevnetChainStore;
  /** Canonical blocks kept in memory (older ones are read from the store). Default 2048; at least 2 x finalityDepth + 1. */
  readonly memoryBlocks?: number;
}

export type TxLocation = { readonly state: 'mined'; readonly height: number } | { readonly state: 'pending' } | null;

const DEFAULT_MEMORY_BLOCKS = 2048;
/** Trimming waits until this many blocks above the window piled up (one pass per batch, not per block). */
const TRIM_SLACK = 256;
/** Blocks below the window read from the store in one go (catching up from an old cursor). */
const PAGE = 256;

/**
 * One simulated chain: canonical blocks (genesis at 0), the recent ones and every recent orphan in
 * memory (BlockWindow), a mempool, and a store holding all of it (the database in the daemon).
 *
 * Invariants:
 * - Changes run one at a time (a queue); each is written to the store in one transaction before
 *   memory changes and listeners are told, so nothing outside ever sees a block the store lacks.
 *   A watcher's cursor (saved in the same database) therefore always names a stored block.
 * - A write whose outcome is unknown (error) marks the memory stale: the next change re-reads
 *   the store first. A write refused because the stored head moved (another writer) re-reads
 *   and is computed again once.
 * - Blocks below the window are final (a reorg is shallower than finalityDepth), so a page of
 *   them read from the store stays valid.
 */
export class DevnetChain {
  readonly network: NetworkCode;
  readonly finalityDepth: number;
  private window: BlockWindow;
  private mempool = new Map<string, PendingTransfer>();
  private readonly listeners = new Set<() => void>();
  private readonly store: DevnetChainStore | undefined;
  private readonly memoryBlocks: number;
  private queue: Promise<unknown> = Promise.resolve();
  private stale = false;
  private page: readonly DevnetBlock[] = [];

  private constructor(
    private readonly options: DevnetChainOptions,
    loaded: StoredChain,
    store?: DevnetChainStore,
    memoryBlocks = Number.POSITIVE_INFINITY,
  ) {
    this.network = options.network;
    this.finalityDepth = options.finalityDepth;
    this.store = store;
    this.memoryBlocks = memoryBlocks;
    this.window = windowOf(options.network, loaded);
    for (const t of loaded.mempool) this.mempool.set(t.txHash, t);
  }

  /** A chain in memory only (tests, tools): it starts at its genesis and dies with the process. */
  static memory(options: DevnetChainOptions): DevnetChain {
    const genesis = genesisOf(options);
    return new DevnetChain(options, { head: genesis, blocks: [genesis], mempool: [] });
  }

  /** The stored chain of the network, created with its genesis block on first use. */
  static async open(options: StoredChainOptions): Promise<DevnetChain> {
    const memoryBlocks = Math.max(options.memoryBlocks ?? DEFAULT_MEMORY_BLOCKS, 2 * options.finalityDepth + 1);
    let loaded = await options.store.load(options.network, memoryBlocks);
    if (!loaded) {
      const genesis = genesisOf(options);
      await options.store.create(options.network, { head: genesis, blocks: [{ block: genesis, canonical: true }], mempool: [] });
      loaded = await options.store.load(options.network, memoryBlocks);
      if (!loaded) throw new Error(`devnet ${options.network}: the chain was created but cannot be read back`);
    }
    return new DevnetChain(options, loaded, options.store, memoryBlocks);
  }

  head(): DevnetBlock {
    return this.window.head();
  }

  /** The canonical block at `height` (below the memory window: read from the store, a page at a time). */
  async blockAt(height: number): Promise<DevnetBlock | undefined> {
    if (!Number.isInteger(height) || height < 0 || height > this.head().height) return undefined;
    const held = this.window.at(height);
    if (held || !this.store) return held;
    let page = this.page;
    const first = page[0]?.height;
    if (first === undefined || height < first || height >= first + page.length) {
      page = await this.store.canonicalBlocks(this.network, height, Math.min(PAGE, this.window.base() - height));
      this.page = page;
    }
    // Canonical heights are contiguous, so a page is indexed by height.
    const start = page[0]?.height;
    return start === undefined ? undefined : page[height - start];
  }

  /** A block by hash, canonical or replaced (its transfers left out); null when never seen here. */
  async blockByHash(hash: string): Promise<BlockHeader | null> {
    return (await this.find(hash))?.block ?? null;
  }

  /**
   * Mines `count` blocks; the first one takes `transfers` and then the whole mempool, except the
   * transactions whose validity ended before its timestamp: those leave the mempool, never included.
   */
  mine(count: number, transfers: readonly PendingTransfer[] = []): Promise<DevnetBlock> {
    return this.change(() => {
      const blocks: DevnetBlock[] = [];
      let parent = this.head();
      let expired: string[] = [];
      for (let i = 0; i < count; i++) {
        const timestamp = this.timestampAfter(parent);
        const offered = i === 0 ? [...transfers, ...this.mempool.values()] : [];
        if (i === 0) expired = offered.filter((t) => !validAt(t, timestamp)).map((t) => t.txHash);
        parent = this.nextBlock(
          parent,
          offered.filter((t) => validAt(t, timestamp)),
          timestamp,
        );
        blocks.push(parent);
      }
      return { expectedHead: cursorOf(this.head()), blocks, ...(expired.length > 0 ? { expired } : {}) };
    });
  }

  /**
   * Drops the last `depth` blocks (their transactions vanish, they are not re-included) and mines
   * depth + 1 empty blocks on a new branch. Refused when it reaches a final block: the lowest dropped
   * block has `depth` confirmations, so depth >= finalityDepth would remove a final (credited) one.
   */
  reorg(depth: number): Promise<DevnetBlock> {
    if (!Number.isInteger(depth) || depth < 1) return Promise.reject(new ValidationError('invalid_depth', 'reorg depth must be a positive integer', 'depth'));
    return this.change(() => {
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
      const blocks: DevnetBlock[] = [];
      let parent = this.window.at(head - depth)!;
      for (let i = 0; i <= depth; i++) {
        parent = this.nextBlock(parent, []);
        blocks.push(parent);
      }
      return { expectedHead: cursorOf(this.head()), keepHeight: head - depth, blocks };
    });
  }

  /** Queues a transfer for the next mined block (payout broadcast). Idempotent per tx hash. */
  submit(transfer: PendingTransfer): Promise<void> {
    return this.exclusive(async () => {
      if (await this.locate(transfer.txHash)) return;
      try {
        await this.store?.addPending(this.network, transfer);
      } catch (error) {
        this.stale = true;
        throw error;
      }
      this.mempool.set(transfer.txHash, transfer);
      this.notify();
    });
  }

  async locate(txHash: string): Promise<TxLocation> {
    if (this.mempool.has(txHash)) return { state: 'pending' };
    const height = this.window.minedHeight(txHash) ?? (this.store ? await this.store.minedHeight(this.network, txHash) : null);
    return height === null || height === undefined ? null : { state: 'mined', height };
  }

  /** What `flow.contract` moved to and from one address in the canonical chain (a hot wallet's balance; mempool left out). */
  async tokenFlow(flow: TokenFlowQuery): Promise<TokenFlow> {
    if (this.store) return this.store.tokenFlow(this.network, flow);
    // In memory the window holds the whole chain.
    let received = toDecimal('0');
    let sent = toDecimal('0');
    for (let h = this.window.base(); h <= this.head().height; h++) {
      for (const t of this.window.at(h)?.transfers ?? []) {
        if (t.contract !== flow.contract) continue;
        if (t.toKey === flow.toKey) received = received.plus(t.amount);
        if (t.from === flow.from) sent = sent.plus(t.amount);
      }
    }
    return { received: formatAmount(received), sent: formatAmount(sent) };
  }

  /** Called after every change (new blocks, reorg, mempool, re-read); returns an unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Resolves once the changes already queued are written (or failed). */
  async drain(): Promise<void> {
    await this.queue;
  }

  /** Writes one computed change, then applies it; see the class invariants. */
  private change(compute: () => ChainExtension): Promise<DevnetBlock> {
    return this.exclusive(async () => {
      for (let attempt = 0; ; attempt++) {
        const change = compute();
        try {
          await this.store?.extend(this.network, change);
        } catch (error) {
          this.stale = true;
          if (error instanceof DevnetHeadMovedError && attempt === 0) {
            await this.reload();
            continue;
          }
          throw error;
        }
        if (change.keepHeight !== undefined) this.window.dropAbove(change.keepHeight);
        this.window.append(change.blocks);
        for (const block of change.blocks) for (const t of block.transfers) this.mempool.delete(t.txHash);
        for (const txHash of change.expired ?? []) this.mempool.delete(txHash);
        if (this.window.size() > this.memoryBlocks + TRIM_SLACK) this.window.trim(this.memoryBlocks);
        this.notify();
        return this.head();
      }
    });
  }

  /** Runs `op` after every earlier change, re-reading the store first when memory may be stale. */
  private exclusive<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      if (this.stale) await this.reload();
      return op();
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async reload(): Promise<void> {
    const loaded = await this.store?.load(this.network, this.memoryBlocks);
    if (!loaded) throw new Error(`devnet ${this.network}: the stored chain is gone`);
    this.window = windowOf(this.network, loaded);
    this.mempool = new Map(loaded.mempool.map((t) => [t.txHash, t]));
    this.page = [];
    this.stale = false;
    this.notify();
  }

  private async find(hash: string): Promise<{ block: BlockHeader; canonical: boolean } | null> {
    return this.window.find(hash) ?? (this.store ? await this.store.blockByHash(this.network, hash) : null);
  }

  /** Every block gets a fresh random hash, so a replacement branch never repeats an orphan's hash. */
  private nextBlock(parent: DevnetBlock, transfers: readonly PendingTransfer[], timestamp = this.timestampAfter(parent)): DevnetBlock {
    return {
      height: parent.height + 1,
      hash: randomBlockHash(this.options.family),
      parentHash: parent.hash,
      timestamp,
      transfers: transfers.map(({ validUntilMs: _validity, ...t }, eventIndex): DevnetTransfer => ({ ...t, eventIndex })),
    };
  }

  /** A child block's timestamp: the clock, never below its parent's (so never below any final block's). */
  private timestampAfter(parent: DevnetBlock): number {
    return Math.max(parent.timestamp, this.options.clock.now().getTime());
  }

  private notify(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** The same genesis hash on every start and database (a chain wiped and recreated shares it). */
function genesisOf(options: DevnetChainOptions): DevnetBlock {
  return {
    height: 0,
    hash: deterministicBlockHash(options.family, `chainpay-devnet:${options.network}:genesis`),
    parentHash: deterministicBlockHash(options.family, ''),
    timestamp: options.clock.now().getTime(),
    transfers: [],
  };
}

/** The loaded blocks must end at the stored head (one snapshot): anything else is a broken store. */
function windowOf(network: NetworkCode, loaded: StoredChain): BlockWindow {
  const window = new BlockWindow(loaded.blocks);
  if (window.head().hash !== loaded.head.hash) throw new Error(`devnet ${network}: the stored head ${loaded.head.height} is not the last canonical block ${window.head().height}`);
  return window;
}

/** A transaction with a validity may only be in a block stamped at or before its end. */
function validAt(transfer: PendingTransfer, timestamp: number): boolean {
  return transfer.validUntilMs === undefined || transfer.validUntilMs === null || timestamp <= transfer.validUntilMs;
}

function cursorOf(block: DevnetBlock): BlockRef {
  return { height: block.height, hash: block.hash };
}
