import type { ChainObservation, ChainWatch } from '../types';
import { backoffDelay, sleep } from './backoff';
import { blockCursor } from './block-cursor';
import { isRetryable, RangeTooLargeError, RpcTimeoutError } from './errors';
import { RangeSize } from './range-size';
import { startState } from './start';
import { syncStep, type StepContext, type SyncState } from './step';
import type { FollowerOptions, FollowerState, SyncStatus } from './types';

/**
 * Follows a block-based chain from a cursor and streams the ChainObservation union to the sink:
 * catches up in ranges, keeps the unfinalized window of hashes, emits `reorg` back to the common
 * ancestor and re-scans, emits `finalize` at the required depth. Failures are retried with
 * backoff; a reorg deeper than finality stops it (state `failed`, error passed to onError).
 * Invariant: state is committed only after the sink accepted every observation of a step, so a
 * failing sink sees the same observations again (consumers dedupe by (network, txHash, eventIndex)).
 */
export class BlockFollower implements ChainWatch {
  private state: SyncState | null = null;
  private lifecycle: FollowerState = 'starting';
  private lastHead: number | null = null;
  private lastError: SyncStatus['lastError'] = null;
  private failures = 0;
  private readonly range: RangeSize;
  private readonly abort = new AbortController();
  private readonly loop: Promise<void>;

  constructor(private readonly options: FollowerOptions) {
    if (!Number.isInteger(options.confirmations) || options.confirmations < 1) throw new RangeError('confirmations must be an integer >= 1');
    this.range = new RangeSize(Math.max(1, options.maxRange ?? 500), options.rangeGrowth);
    this.loop = this.run();
  }

  head(): number | null {
    return this.lastHead;
  }

  status(): SyncStatus {
    const cursor = this.state?.tip ?? this.options.from;
    return {
      network: this.options.network,
      state: this.lifecycle,
      head: this.lastHead,
      cursor,
      finalized: this.state?.finalized ?? null,
      lag: this.lastHead !== null && cursor !== null ? Math.max(0, this.lastHead - cursor.height) : null,
      lastError: this.lastError,
      consecutiveFailures: this.failures,
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
    this.abort.abort();
    await this.loop;
  }

  private async run(): Promise<void> {
    const { pollIntervalMs = 2000 } = this.options;
    while (!this.abort.signal.aborted) {
      try {
        const idle = await this.step();
        this.failures = 0;
        const until = this.syncedUntil();
        if (until !== null) this.options.onSynced?.(until);
        if (idle) await this.waitForChange(pollIntervalMs);
      } catch (error) {
        if (this.abort.signal.aborted) break; // stop() during a step: not a failure
        const err = error instanceof Error ? error : new Error(String(error));
        this.failures += 1;
        this.lastError = { name: err.name, message: err.message, at: new Date() };
        this.options.onError?.(err);
        if (!isRetryable(err)) {
          this.lifecycle = 'failed';
          return;
        }
        // A refusal narrows the range; a timeout is retried on the same range (narrowed only when
        // it keeps timing out); RangeSize grows it back as ranges succeed.
        if (err instanceof RangeTooLargeError) this.range.refused(err.blocks ?? this.range.current());
        if (err instanceof RpcTimeoutError) this.range.timedOut(err.blocks);
        const { initialMs = 500, maxMs = 30_000 } = this.options.backoff ?? {};
        await sleep(backoffDelay(this.failures, initialMs, maxMs), this.abort.signal);
      }
    }
    this.lifecycle = 'stopped';
  }

  /**
   * The poll pause once caught up; a source that signals its changes (BlockSource.changed) ends it
   * at the change, so a new block is seen at once. The listener is dropped when the pause ends.
   */
  private async waitForChange(pollIntervalMs: number): Promise<void> {
    const { source } = this.options;
    if (!source.changed) {
      await sleep(pollIntervalMs, this.abort.signal);
      return;
    }
    const pause = new AbortController();
    const stop = (): void => pause.abort();
    this.abort.signal.addEventListener('abort', stop, { once: true });
    try {
      await Promise.race([sleep(pollIntervalMs, pause.signal), source.changed(pause.signal)]);
    } finally {
      this.abort.signal.removeEventListener('abort', stop);
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
      this.lifecycle = 'running';
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
      if (this.abort.signal.aborted) throw new Error('stopped');
      await this.options.sink(observation);
    }
  }

  private context(): StepContext {
    const { network, source, confirmations, headerConcurrency = 8, cursorOf = blockCursor } = this.options;
    return { network, source, confirmations, maxRange: this.range.current(), headerConcurrency, cursor: cursorOf };
  }
}
