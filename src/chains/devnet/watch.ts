import type { NetworkCode } from '../../domain/networks';
import { ReorgBeyondFinalityError } from '../sync/errors';
import type { ChainCursor, ChainObservation, ChainWatch, WatchOptions } from '../types';
import type { DevnetChain } from './chain';
import type { DevnetBlock, DevnetTransfer } from './types';

export interface DevnetWatchOptions extends WatchOptions {
  readonly network: NetworkCode;
  readonly chain: DevnetChain;
  /** The adapter's filter (token contract + watched set); O(1) per transfer. */
  readonly matches: (transfer: DevnetTransfer) => boolean;
  /** First retry delay after a sink failure; doubles up to 10 s. */
  readonly retryDelayMs?: number;
  /** The clock the chain stamps its blocks with (syncedUntil); without it the watch vouches for nothing. */
  readonly now?: () => Date;
}

interface Step {
  readonly observations: readonly ChainObservation[];
  /** Where the watcher stands once every observation of the step was accepted. */
  readonly cursor: ChainCursor;
  readonly finalized?: number;
}

/**
 * Streams one devnet chain from a cursor. One step is a reorg, or one block with its transfers and
 * finality; the cursor only moves after the sink accepted the whole step, so a failing sink gets
 * the same step again (consumers dedupe transfers by network, txHash, eventIndex).
 */
export class DevnetWatch implements ChainWatch {
  private cursor: ChainCursor | null;
  private finalized = -1;
  private stopped = false;
  private changed = false;
  private ended = false;
  private wake: (() => void) | undefined;
  private interrupt: (() => void) | undefined;
  private readonly unsubscribe: () => void;
  private readonly done: Promise<void>;

  constructor(private readonly options: DevnetWatchOptions) {
    this.cursor = options.from;
    this.unsubscribe = options.chain.subscribe(() => this.poke());
    this.done = this.run().finally(() => {
      this.ended = true;
    });
  }

  head(): number | null {
    return this.options.chain.head().height;
  }

  /**
   * Idle at the head (its whole step accepted by the sink): every block there is was delivered, and
   * the chain stamps a later block with max(parent, now), never before now; so it vouches for now.
   */
  syncedUntil(): Date | null {
    const cursor = this.cursor;
    if (this.stopped || this.ended || !this.options.now || cursor === null) return null;
    return this.options.chain.head().hash === cursor.hash ? this.options.now() : null;
  }

  /** Resolves once the loop has ended; nothing is emitted afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.poke();
    this.interrupt?.();
    await this.done;
    this.unsubscribe();
  }

  private poke(): void {
    this.changed = true;
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  private async run(): Promise<void> {
    const final = this.options.finalized ?? null;
    if (final !== null) {
      // The last final block we saw must still be canonical; otherwise stop: an operator decides.
      if ((await this.options.chain.blockAt(final.height))?.hash !== final.hash) {
        const tipHeight = this.cursor?.height ?? final.height;
        this.options.onError?.(new ReorgBeyondFinalityError(this.options.network, { finalizedHeight: final.height, finalizedHash: final.hash, tipHeight }));
        return;
      }
      this.finalized = final.height;
    }
    let failures = 0;
    while (!this.stopped) {
      try {
        // A change that lands while the next step is being read sets `changed` again: look again
        // instead of sleeping through it.
        this.changed = false;
        const step = await this.nextStep();
        if (!step) {
          if (!this.changed && !this.stopped) await new Promise<void>((resolve) => (this.wake = resolve));
          continue;
        }
        for (const observation of step.observations) {
          if (this.stopped) return;
          await this.options.sink(observation);
        }
        this.cursor = step.cursor;
        if (step.finalized !== undefined) this.finalized = step.finalized;
        failures = 0;
      } catch (error) {
        this.options.onError?.(error instanceof Error ? error : new Error(String(error)));
        await this.pause(Math.min((this.options.retryDelayMs ?? 250) * 2 ** failures++, 10_000));
      }
    }
  }

  private async nextStep(): Promise<Step | null> {
    const { chain, network } = this.options;
    const cursor = this.cursor;
    if (cursor && (await chain.blockAt(cursor.height))?.hash !== cursor.hash) {
      // The cursor's block left the canonical chain (maybe while we were down): rewind first.
      const commonAncestor = await chain.commonAncestor(cursor);
      return { observations: [{ kind: 'reorg', network, commonAncestor, depth: cursor.height - commonAncestor.height }], cursor: commonAncestor };
    }
    // No cursor (first run): the current head is the first block streamed.
    const block = cursor ? await chain.blockAt(cursor.height + 1) : chain.head();
    return block ? this.blockStep(block) : null;
  }

  private async blockStep(block: DevnetBlock): Promise<Step> {
    const { chain, network } = this.options;
    // Transfers before their block, as the EVM source does: the block observation commits the
    // cursor, so a crash after it must not be able to skip the block's transfers on restart.
    const observations: ChainObservation[] = [];
    for (const t of block.transfers) {
      if (!this.options.matches(t)) continue;
      observations.push({ kind: 'transfer', network, txHash: t.txHash, eventIndex: t.eventIndex, blockHeight: block.height, blockHash: block.hash, from: t.from, to: t.toKey, memo: t.memo, amount: t.amount, blockTime: new Date(block.timestamp) });
    }
    observations.push({ kind: 'block', network, height: block.height, hash: block.hash, parentHash: block.parentHash, timestamp: new Date(block.timestamp) });
    // A block with finalityDepth confirmations (block.height - height + 1) is final.
    const finalHeight = block.height - chain.finalityDepth + 1;
    const final = finalHeight > this.finalized ? await chain.blockAt(finalHeight) : undefined;
    if (final) observations.push({ kind: 'finalize', network, height: final.height, hash: final.hash });
    return { observations, cursor: { height: block.height, hash: block.hash }, finalized: final?.height };
  }

  /** Waits `ms` of real time (infrastructure retry, not business time); only stop() cuts it short. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.interrupt?.(), ms);
      this.interrupt = () => {
        clearTimeout(timer);
        this.interrupt = undefined;
        resolve();
      };
    });
  }
}
