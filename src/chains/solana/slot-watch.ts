import type { NetworkCode } from '../../domain/networks';
import { sleep } from '../sync/backoff';
import { InconsistentChainError } from '../sync/errors';
import { RunLoop, type RunLoopStats } from '../sync/run-loop';
import type { ChainWatch, ObservationSink } from '../types';
import { solanaCursor, type SolanaCursor } from './cursor';
import { depositsInBlock, type DepositFilter } from './deposits';
import { InOrderReads } from './in-order-reads';
import type { SlotSource } from './slot-source';

/** Structured log lines of the watch (pino-compatible). */
export interface SolanaLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export interface SlotWatchOptions {
  readonly network: NetworkCode;
  readonly source: SlotSource;
  readonly filter: DepositFilter;
  /** The last fully processed slot and its blockhash. null: start at the finalized slot. */
  readonly from: SolanaCursor | null;
  readonly sink: ObservationSink;
  readonly onError?: (error: Error) => void;
  readonly logger?: SolanaLogger;
  readonly pollIntervalMs: number;
  readonly maxSlotRange: number;
  /** getBlock calls in flight at once (read ahead of the slot being processed, processed in order). */
  readonly blockConcurrency: number;
  readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  /** A `block` observation (a cursor commit) at least every this many produced slots while catching up. */
  readonly commitEvery?: number;
}

/**
 * Follows finalized slots from the cursor and streams observations: per produced slot its payments,
 * then (at least every `commitEvery` slots, after each slot with payments and at the end of each
 * range) `block` and `finalize` for it. Only finalized blocks are read, so nothing is ever reorged:
 * a block is final when emitted. Invariants: no slot is passed over (each block must name the
 * cursor as its parent: slot and blockhash; skipped slots are gaps between parent and child; a
 * block that does not is read again from the cursor), a slot the provider lost (-32009) is retried,
 * never skipped, and so is a slot getBlocks listed that getBlock calls skipped (-32007) until a
 * later block proves it skipped; the cursor moves only after the sink
 * accepted every observation before it, so a crash replays (payments are keyed by signature and
 * account index).
 */
export class SlotWatch implements ChainWatch {
  private readonly loop: RunLoop;
  private finalSlot: number | null = null;
  private cursor: SolanaCursor | null;
  private lastTime: Date | null = null;

  constructor(private readonly options: SlotWatchOptions) {
    this.cursor = options.from;
    // The shared run loop: retryable classes (-32004, -32009, RPC failures, malformed blocks, a
    // block that does not follow the cursor) are retried with backoff; anything else stops the watch.
    this.loop = new RunLoop({
      step: async () => !(this.cursor === null ? await this.start() : await this.step(this.cursor)),
      idle: (signal) => sleep(options.pollIntervalMs, signal),
      backoff: options.backoff,
      ...(options.onError ? { onError: options.onError } : {}),
    });
  }

  head(): number | null {
    return this.finalSlot;
  }

  /** Read by the watcher for its health (consecutive failures of this watch). */
  status(): { consecutiveFailures: number } {
    return { consecutiveFailures: this.loop.stats().consecutiveFailures };
  }

  /** The shared run loop's figures (steps, retries, errors by class). */
  loopStats(): RunLoopStats {
    return this.loop.stats();
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private get stopped(): boolean {
    return this.loop.stopping;
  }

  /** First run: the newest finalized block becomes the cursor (nothing older is scanned). */
  private async start(): Promise<boolean> {
    const { source } = this.options;
    const final = await source.finalizedSlot();
    this.finalSlot = final;
    const slots = await source.producedSlots(Math.max(0, final - 100), final);
    const slot = slots[slots.length - 1];
    if (slot === undefined) throw new InconsistentChainError(`no produced slot at or below the finalized slot ${final}`, { slot: final });
    const read = await source.block(slot);
    if (read.kind === 'skipped') throw new InconsistentChainError(`finalized slot ${slot} listed by getBlocks but skipped`, { slot });
    await this.commit({ slot, blockhash: read.block.blockhash }, read.block.previousBlockhash, read.block.blockTime);
    return true;
  }

  /** One range of finalized slots above the cursor; false when there is none (idle). */
  private async step(from: SolanaCursor): Promise<boolean> {
    const { source, filter, network } = this.options;
    const final = await source.finalizedSlot();
    this.finalSlot = final;
    // Slots up to nextSlot - 1 were read already (a run of skipped slots leaves the cursor behind).
    const start = Math.max(from.slot + 1, this.nextSlot);
    if (final < start) return false;
    const end = Math.min(final, start + this.options.maxSlotRange - 1);
    const slots = await source.producedSlots(start, end);
    const reads = new InOrderReads(slots, (slot: number) => source.block(slot), this.options.blockConcurrency);
    let cursor = from;
    let parentHash = '';
    let blockTime: number | null = null;
    let uncommitted = 0;
    // The first slot getBlocks listed that getBlock answered -32007 for, not yet proven skipped:
    // a load-balanced provider's node that lacks the block says "skipped" for a slot another node
    // listed. Only a later block naming the cursor as its parent proves it skipped.
    let unproven: number | null = null;
    for (const slot of slots) {
      if (this.stopped) break;
      const read = await reads.next();
      if (read.kind === 'skipped') {
        this.options.logger?.warn({ network, slot, cursor: cursor.slot }, 'SOLANA: getBlock says skipped (-32007) for a slot getBlocks listed; the next block must name the cursor as parent');
        unproven ??= slot;
        continue;
      }
      const block = read.block;
      if (block.parentSlot !== cursor.slot || block.previousBlockhash !== cursor.blockhash) {
        // Read again from the cursor (a slot answered -32007 that does hold a block, or a getBlocks
        // answer that left one out): the cursor is committed so far, getBlocks is asked again from it.
        if (uncommitted > 0) await this.commit(cursor, parentHash, blockTime);
        this.nextSlot = 0;
        throw new InconsistentChainError(`block ${slot} does not follow the cursor ${cursor.slot}`, {
          slot,
          parentSlot: block.parentSlot,
          previousBlockhash: block.previousBlockhash,
          cursorSlot: cursor.slot,
          cursorHash: cursor.blockhash,
          unprovenSkippedSlot: unproven,
        });
      }
      // This block names the cursor as its parent: every slot between them was skipped.
      unproven = null;
      const time = this.timeOf(block.blockTime);
      const transfers = depositsInBlock(slot, block, filter);
      // Final when seen (finalized slots only); 1 confirmation at the cursor this slot becomes.
      for (const t of transfers) await this.options.sink({ ...t, blockTime: time, confirmations: 1, final: true });
      cursor = { slot, blockhash: block.blockhash };
      parentHash = block.previousBlockhash;
      blockTime = block.blockTime;
      uncommitted += 1;
      if (transfers.length > 0 || uncommitted >= (this.options.commitEvery ?? 100)) {
        await this.commit(cursor, parentHash, blockTime);
        uncommitted = 0;
      }
    }
    if (uncommitted > 0) await this.commit(cursor, parentHash, blockTime);
    // Every produced slot up to `end` was read (or the watch is stopping, and starts from the
    // cursor), except an unproven "skipped" one at the end: getBlocks is asked from it again, and
    // its getBlock retried, until a block after it decides.
    if (!this.stopped) this.nextSlot = unproven ?? end + 1;
    return end < final;
  }

  /** The next slot to ask getBlocks from: above the cursor and above any run of skipped slots read. */
  private nextSlot = 0;

  private timeOf(blockTime: number | null): Date {
    if (blockTime !== null) this.lastTime = new Date(blockTime * 1000);
    return this.lastTime ?? new Date();
  }

  /** The cursor moves: `block` then `finalize` (only finalized blocks are read: final at once). */
  private async commit(cursor: SolanaCursor, parentHash: string, blockTime: number | null): Promise<void> {
    const { sink, network } = this.options;
    const json = solanaCursor(cursor.slot, cursor.blockhash);
    await sink({ kind: 'block', network, height: cursor.slot, hash: cursor.blockhash, parentHash, timestamp: this.timeOf(blockTime), cursor: json });
    await sink({ kind: 'finalize', network, height: cursor.slot, hash: cursor.blockhash, cursor: json });
    this.cursor = cursor;
  }
}
