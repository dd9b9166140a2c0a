import type { ChainObservation, ChainWatch } from '../types';
import { sleep } from './backoff';
import { blockCursor } from './block-cursor';
import { RangeTooLargeError, RpcTimeoutError } from './errors';
import { RangeSize } from './range-size';
import { RunLoop, type RunLoopStats } from './run-loop';
import { startState } from './start';
import { syncStep, type StepContext, type SyncState } from './step';
import type { FollowerOptions, FollowerState, SyncStatus } from './types';

/**
 * Follows a block-based chain from a cursor and streams the ChainObservation union to the sink:
 * catches up in ranges, keeps the unfinalized window of hashes, emits `reorg` back to the common
 * ancestor and re-scans, emits `finalize` at the required depth. Steps run on the shared RunLoop:
 * retryable error classes are retried with backoff, any other (a reorg deeper than finality) stops
 * it (state `failed`, error passed to onError).
 * Invariant: state is committed only after the sink accepted every observation of a step, so a
 * failing sink sees the same observations again (consumers dedupe by (network, txHash, eventIndex)).
 */
export class BlockFollower implements ChainWatch {
  private state: SyncState | null = null;
  private lastHead: number | null = null;
  private readonly range: RangeSize;
  private readonly loop: RunLoop;

  constructor(private readonly options: FollowerOptions) {
    if (!Number.isInteger(options.confirmations) || options.confirmations < 1) throw new RangeError('confirmations must be an integer >= 1');
    this.range = new RangeSize(Math.max(1, options.maxRange ?? 500), options.rangeGrowth);
    const { initialMs = 500, maxMs = 30_000 } = options.backoff ?? {};
    this.loop = new RunLoop({
      step: () => this.stepAndVouch(),
      idle: (signal) => this.waitForChange(options.pollIntervalMs ?? 2000, signal),
      backoff: { initialMs, maxMs },
      ...(options.onError ? { onError: options.onError } : {}),
      // A refusal narrows the range; a timeout is retried on the same range (narrowed only when
      // it keeps timing out); RangeSize grows it back as ranges succeed.
      onRetry: (err) => {
        if (err instanceof RangeTooLargeError) this.range.refused(err.blocks ?? this.range.current());
        if (err instanceof RpcTimeoutError) this.range.timedOut(err.blocks);
      },
    });
  }

  private get lifecycle(): FollowerState {
    const state = this.loop.stats().state;
    if (state !== 'running') return state;
    return this.state === null ? 'starting' : 'running';
  }

  /** The shared run loop's figures (steps, retries, errors by class). */
  loopStats(): RunLoopStats {
    return this.loop.stats();
  }

  head(): number | null {
    return this.lastHead;
  }

  status(): SyncStatus {
    const cursor = this.state?.tip ?? this.options.from;
    const loop = this.loop.stats();
    return {
      network: this.options.network,
      state: this.lifecycle,
      head: this.lastHead,
      cursor,
      finalized: this.state?.finalized ?? null,
      lag: this.lastHead !== null && cursor !== null ? Math.max(0, this.lastHead - cursor.height) : null,
      lastError: loop.lastError,
      consecutiveFailures: loop.consecutiveFailures,
      maxRange: this.range.current(),
    };
  }

  /**
   * BlockSource.syncedUntil for the committed tip (every observation up to it accepted by the
   * sink): a devnet chain whose head it is vouches for now. Null while not running, and always for
   * a source that cannot vouch (a live RPC may lag).
   */
  syncedUntil(): Date | null {
    const tip = this.state?.tip;
    if (this.lifecycle !== 'running' || tip === undefined || !this.options.source.syncedUntil) return null;
    return this.options.source.syncedUntil(tip);
  }

  /** Resolves once the loop has ended; an in-flight step finishes its current await first. */
  async stop(): Promise<void> {
    await this.loop.stop();
  }

  private async stepAndVouch(): Promise<boolean> {
    const idle = await this.step();
    const until = this.syncedUntil();
    if (until !== null) this.options.onSynced?.(until);
    return idle;
  }

  /**
   * The poll pause once caught up; a source that signals its changes (BlockSource.changed) ends it
   * at the change, so a new block is seen at once. The listener is dropped when the pause ends.
   */
  private async waitForChange(pollIntervalMs: number, signal: AbortSignal): Promise<void> {
    const { source } = this.options;
    if (!source.changed) {
      await sleep(pollIntervalMs, signal);
      return;
    }
    const pause = new AbortController();
    const stop = (): void => pause.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      await Promise.race([sleep(pollIntervalMs, pause.signal), source.changed(pause.signal)]);
    } finally {
      signal.removeEventListener('abort', stop);
      pause.abort();
    }
  }

  /** Returns true when there was nothing new. */
  private async step(): Promise<boolean> {
    const ctx = this.context();
    if (this.state === null) {
      const started = await startState(ctx, this.options.from, this.options.finalized ?? null);
      await this.emit(started.observations);
      this.state = started.state;
      return false;
    }
    const result = await syncStep(ctx, this.state);
    this.lastHead = result.head;
    await this.emit(result.observations);
    this.state = result.next;
    if (result.scanned > 0) this.range.succeeded(result.scanned);
    return result.idle;
  }

  private async emit(observations: readonly ChainObservation[]): Promise<void> {
    for (const observation of observations) {
      // Stopping mid-step: drop the rest; the state is not committed, so nothing is lost.
      if (this.loop.stopping) throw new Error('stopped');
      await this.options.sink(observation);
    }
  }

  private context(): StepContext {
    const { network, source, confirmations, headerConcurrency = 8, cursorOf = blockCursor } = this.options;
    return { network, source, confirmations, maxRange: this.range.current(), headerConcurrency, cursor: cursorOf };
  }
}
