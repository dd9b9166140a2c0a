import type { Clock } from '../../domain/clock';
import type { NetworkCode } from '../../domain/networks';
import { InconsistentChainError } from '../sync/errors';
import type { BlockHeader, BlockSource } from '../sync/types';
import type { BlockRef, UnstampedTransfer, WatchedAddresses } from '../types';
import type { DevnetChain } from './chain';
import type { DevnetBlock } from './types';

export interface DevnetBlockSourceOptions {
  readonly network: NetworkCode;
  readonly chain: DevnetChain;
  /** Only this token is a payment (the look-alike token is on chain but never matched). */
  readonly tokenContract: string;
  /** The shared memo address (master_memo networks), normalized; always matched. */
  readonly sharedKey: string | null;
  readonly watched: WatchedAddresses;
  /** The clock the chain stamps its blocks with (syncedUntil). */
  readonly clock: Clock;
}

/**
 * A devnet chain as the block follower reads it, exactly as it reads a live node: the devnet runs
 * the same reorg, finality and catch-up code as the live families. Beyond a node it tells when its
 * chain changes (changed: an idle follower sees a new block at once), vouches for now at its head
 * (syncedUntil) and finds replaced blocks by hash (exact common ancestors after a restart).
 */
export class DevnetBlockSource implements BlockSource {
  /** Bumped on every change of the chain (blocks, reorg, mempool, re-read). */
  private version = 0;
  /** `version` when head() last answered. */
  private seen = 0;
  private readonly waiters = new Set<() => void>();
  private readonly unsubscribe: () => void;

  constructor(private readonly options: DevnetBlockSourceOptions) {
    this.unsubscribe = options.chain.subscribe(() => {
      this.version += 1;
      for (const wake of [...this.waiters]) wake();
    });
  }

  async head(): Promise<number> {
    this.seen = this.version;
    return this.options.chain.head().height;
  }

  async block(height: number): Promise<BlockHeader | null> {
    const block = await this.options.chain.blockAt(height);
    return block ? header(block) : null;
  }

  /** The canonical blocks' transfers of the configured token to the shared or a watched address: one Set lookup each. */
  async transfers(fromHeight: number, toHeight: number): Promise<UnstampedTransfer[]> {
    const { chain, network, tokenContract, sharedKey, watched } = this.options;
    const out: UnstampedTransfer[] = [];
    for (let height = fromHeight; height <= toHeight; height++) {
      const block = await chain.blockAt(height);
      // Above the head: the chain changed under the step (the follower retries it).
      if (!block) throw new InconsistentChainError(`devnet block ${height} not available`, { height });
      for (const t of block.transfers) {
        if (t.contract !== tokenContract || (t.toKey !== sharedKey && !watched.has(t.toKey))) continue;
        out.push({
          kind: 'transfer',
          network,
          txHash: t.txHash,
          eventIndex: t.eventIndex,
          blockHeight: block.height,
          blockHash: block.hash,
          from: t.from,
          to: t.toKey,
          memo: t.memo,
          amount: t.amount,
        });
      }
    }
    return out;
  }

  changed(signal: AbortSignal): Promise<void> {
    if (this.version !== this.seen || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        this.waiters.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      this.waiters.add(done);
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** The chain stamps a later block max(parent, now), never before now: at the head, every block stamped before now was delivered. */
  syncedUntil(tip: BlockRef): Date | null {
    return this.options.chain.head().hash === tip.hash ? this.options.clock.now() : null;
  }

  async blockByHash(hash: string): Promise<BlockHeader | null> {
    const found = await this.options.chain.blockByHash(hash);
    return found ? header(found) : null;
  }

  /** Stops listening to the chain; a pending changed() resolves. */
  close(): void {
    this.unsubscribe();
    for (const wake of [...this.waiters]) wake();
  }
}

function header(block: Omit<DevnetBlock, 'transfers'>): BlockHeader {
  return { height: block.height, hash: block.hash, parentHash: block.parentHash, timestamp: new Date(block.timestamp) };
}
