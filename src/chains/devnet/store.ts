import type { NetworkCode } from '../../domain/networks';
import type { BlockRef } from '../types';
import type { DevnetBlock, PendingTransfer } from './types';

/**
 * Where the devnet chains live: the database in the daemon (PgDevnetStore), so a standby daemon on
 * the same database continues the same chains after a failover. Every write is one transaction:
 * a SIGKILL at any point leaves a chain as it was before the write or after it, never in between.
 * DevnetChain changes its in-memory copy (and tells its watch) only after the write committed, so a
 * watcher cursor (also in the database) can only ever name a block the database holds.
 */
export interface DevnetChainStore {
  /**
   * The chain of `network` with its newest canonical blocks (at most `window`, ascending, the head
   * last) and its mempool in arrival order; null when the network has no devnet chain yet.
   */
  load(network: NetworkCode, window: number): Promise<StoredChain | null>;
  /**
   * Creates the chain (a genesis block, or a journal imported from an older version); false, with
   * nothing written, when the network has a chain already.
   */
  create(network: NetworkCode, initial: InitialChain): Promise<boolean>;
  /**
   * One change of the canonical chain, atomically and only while the stored head is still
   * `change.expectedHead`: orphans the canonical blocks above `keepHeight` (a reorg), appends
   * `blocks`, moves the head to the last of them and takes their transactions (and `change.expired`) out of the mempool.
   * Throws DevnetHeadMovedError, having changed nothing, when another writer moved the head since
   * this chain read it.
   */
  extend(network: NetworkCode, change: ChainExtension): Promise<void>;
  /** Puts a transfer in the mempool (a no-op when it is there already). */
  addPending(network: NetworkCode, transfer: PendingTransfer): Promise<void>;
  /** Canonical blocks from height `from` upwards (at most `limit`, ascending) with their transfers. */
  canonicalBlocks(network: NetworkCode, from: number, limit: number): Promise<DevnetBlock[]>;
  /** A block by hash, canonical or orphaned (transfers left out); null when never stored. */
  blockByHash(network: NetworkCode, hash: string): Promise<{ readonly block: BlockHeader; readonly canonical: boolean } | null>;
  /** The height of the canonical block holding `txHash`; null when no canonical block does. */
  minedHeight(network: NetworkCode, txHash: string): Promise<number | null>;
  /** Token `contract` moved in canonical blocks to `toKey` and from `from` (decimal strings): a hot wallet's balance. */
  tokenFlow(network: NetworkCode, flow: TokenFlowQuery): Promise<TokenFlow>;
}

export interface TokenFlowQuery {
  /** The address as payouts write it in `from`. */
  readonly from: string;
  /** The same address normalized (what `toKey` holds). */
  readonly toKey: string;
  readonly contract: string;
}

export interface TokenFlow {
  readonly received: string;
  readonly sent: string;
}

export interface StoredChain {
  readonly head: BlockRef;
  /** Canonical, ascending, contiguous, ending at the head. */
  readonly blocks: readonly DevnetBlock[];
  readonly mempool: readonly PendingTransfer[];
}

/** A chain as created: its head, every block (canonical or orphaned) and its mempool. */
export interface InitialChain {
  readonly head: BlockRef;
  readonly blocks: readonly { readonly block: DevnetBlock; readonly canonical: boolean }[];
  readonly mempool: readonly PendingTransfer[];
}

export type BlockHeader = Omit<DevnetBlock, 'transfers'>;

export interface ChainExtension {
  /** The head this change was computed from (compare-and-swap). */
  readonly expectedHead: BlockRef;
  /** Reorg: canonical blocks above this height are orphaned first. Absent: nothing is dropped. */
  readonly keepHeight?: number;
  /** New canonical blocks, ascending; the first one's parent is the block at keepHeight (or the expected head). */
  readonly blocks: readonly DevnetBlock[];
  /** Mempool transactions whose validity ended before the first new block: taken out of the mempool, never included. */
  readonly expired?: readonly string[];
}

/**
 * The stored head is not the one this chain computed its change from: another writer (a previous
 * active daemon whose last transaction landed after the takeover) got there first. Nothing was
 * written; the chain reloads from the store and may retry.
 */
export class DevnetHeadMovedError extends Error {
  override readonly name = 'DevnetHeadMovedError';
  readonly code = 'devnet_head_moved';
  constructor(
    readonly network: NetworkCode,
    readonly expectedHead: BlockRef,
  ) {
    super(`devnet ${network}: the stored head is no longer block ${expectedHead.height} (${expectedHead.hash}); another writer moved it`);
  }
}
