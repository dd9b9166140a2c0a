import type { NetworkCode } from '../../domain/networks';
import type { BlockRef, ChainCursor, ObservationSink, UnstampedTransfer } from '../types';
import type { RangeGrowth } from './range-size';

/** The header facts the follower needs to detect reorgs. */
export interface BlockHeader {
  readonly height: number;
  readonly hash: string;
  readonly parentHash: string;
  readonly timestamp: Date;
}

/**
 * What a block-based chain family provides to the follower. Implementations throw the classes of
 * ./errors.ts (RpcTransientError, RangeTooLargeError, ...) so the follower classifies by class.
 */
export interface BlockSource {
  /** The current head height. */
  head(): Promise<number>;
  /** The block at `height` on the source's current chain; null when above the source's head. */
  block(height: number): Promise<BlockHeader | null>;
  /**
   * Token transfers in [fromHeight, toHeight] (inclusive): only the configured token, only to
   * watched addresses. Cost must not depend on how many addresses are watched. The follower
   * stamps each with its block's time from the headers.
   * Every transfer of the whole range, or an error: the follower never reads a range again, so a
   * source whose backend may silently answer for less than asked (a lagging node that clamps the
   * range to its own head, as geth does for eth_getLogs) must prove its answer complete or throw
   * (EVM: src/chains/evm/log-coverage.ts). `headers`: what the follower fetched of this range (every
   * height of an unfinal range, the first and last of a final one), as the source returned them.
   */
  transfers(fromHeight: number, toHeight: number, headers: ReadonlyMap<number, BlockHeader>): Promise<UnstampedTransfer[]>;
  /**
   * Optional, a source that can tell when its chain changes (devnet: an in-process chain). Resolves
   * once the chain changed after the source last answered head(), at once when it already has, or
   * when `signal` aborts. An idle follower then wakes at the change instead of its next poll.
   */
  changed?(signal: AbortSignal): Promise<void>;
  /**
   * Optional, a source that knows its head exactly and never stamps a later block before now
   * (devnet): now when `tip` is its head, so every block stamped before now was delivered; else null.
   */
  syncedUntil?(tip: BlockRef): Date | null;
  /**
   * Optional, a source that keeps replaced blocks (devnet): the header of the block with `hash` on
   * any branch, null when unknown. A walk-back then follows a replaced tip's parents down to the
   * exact common ancestor instead of stopping at the last final block (after a restart the
   * follower knows only the saved tip's hash and the final anchor).
   */
  blockByHash?(hash: string): Promise<BlockHeader | null>;
  /**
   * Optional, a chain with an irreversibility rule of its own besides depth (TRON: the solidified
   * head, confirmed by 19 of 27 super representatives). Given the highest height final by depth,
   * the highest height the chain holds irreversible; a block is final only when both say so. It may
   * answer a lower height than the truth (e.g. a cached one): finality then only comes later.
   */
  finalHeight?(depthFinal: number): Promise<number>;
}

export interface FollowerOptions {
  readonly network: NetworkCode;
  readonly source: BlockSource;
  /** null: start at the source's current head. */
  readonly from: BlockRef | null;
  /**
   * The last block emitted as final before (persisted by the consumer), at or below `from`. When
   * given, it is the anchor and is checked first: a chain that no longer holds it was reorged
   * deeper than finality (maybe while we were down) and the follower fails with ReorgBeyondFinalityError.
   */
  readonly finalized?: BlockRef | null;
  readonly sink: ObservationSink;
  /** Required confirmations: a block with this many confirmations (head - height + 1) is final. */
  readonly confirmations: number;
  /** Largest block range per transfers() call while catching up (provider limit). Default 500. */
  readonly maxRange?: number;
  /** How a range narrowed by a refusal grows back (default DEFAULT_RANGE_GROWTH, range-size.ts). */
  readonly rangeGrowth?: RangeGrowth;
  /** Pause between polls once caught up. Default 2000 ms. */
  readonly pollIntervalMs?: number;
  /** Exponential backoff of failed steps. Defaults: 500 ms doubling up to 30 s. */
  readonly backoff?: { readonly initialMs: number; readonly maxMs: number };
  /** Parallel block() calls when fetching the headers of the unfinalized window. Default 8. */
  readonly headerConcurrency?: number;
  /** The family's cursor of a block, carried by the observations (default blockCursor: { height, hash }; TRON: { height, blockId }). */
  readonly cursorOf?: (block: BlockRef) => ChainCursor;
  /** WatchOptions.onSynced: the vouched chain time, pushed after each accepted step. */
  readonly onSynced?: (until: Date) => void;
  /** Every failure (retried or fatal) is reported here. */
  readonly onError?: (error: Error) => void;
}

export type FollowerState = 'starting' | 'running' | 'stopped' | 'failed';

/** Readable at any time (gRPC watcher status). */
export interface SyncStatus {
  readonly network: NetworkCode;
  readonly state: FollowerState;
  /** The chain head as last seen. */
  readonly head: number | null;
  /** The last block whose observations were all delivered to the sink. */
  readonly cursor: BlockRef | null;
  /** The last block emitted as final. */
  readonly finalized: BlockRef | null;
  /** head - cursor.height, when both are known. */
  readonly lag: number | null;
  readonly lastError: { readonly name: string; readonly message: string; readonly at: Date } | null;
  readonly consecutiveFailures: number;
  /** The block range currently used while catching up (narrowed when the provider refuses, grown back as ranges succeed). */
  readonly maxRange: number;
}
