import { backoffDelay, sleep } from './backoff';
import { errorClassOf, isRetryable } from './retry-rule';

/** running: stepping; failed: stopped on a fatal error (the watcher halts); stopped: stop() was called. */
export type RunLoopState = 'running' | 'failed' | 'stopped';

/** What every chain watch loop reports (the same for the follower, TON and SOLANA). */
export interface RunLoopStats {
  readonly state: RunLoopState;
  /** Steps that completed (idle or not). */
  readonly steps: number;
  /** Failed steps retried after a backoff. */
  readonly retries: number;
  /** Failed steps by error class (retried and fatal alike). */
  readonly errors: Readonly<Record<string, number>>;
  /** Failures since the last completed step (0: healthy). */
  readonly consecutiveFailures: number;
  readonly lastError: { readonly name: string; readonly message: string; readonly at: Date } | null;
}

export interface RunLoopOptions {
  /** One step of the watch; resolves true when there was nothing new (the loop idles before the next). */
  readonly step: (signal: AbortSignal) => Promise<boolean>;
  /** The pause after an idle step; it must end when the signal aborts. */
  readonly idle: (signal: AbortSignal) => Promise<unknown>;
  readonly backoff: { readonly initialMs: number; readonly maxMs: number };
  /** Every failure, retried or fatal (the watcher logs it, and halts on a fatal one by the same rule). */
  readonly onError?: (error: Error) => void;
  /** A retried failure, before its backoff of `delayMs` (the follower narrows its range here). */
  readonly onRetry?: (error: Error, delayMs: number) => void;
  /** Jitter source of the backoff (tests). */
  readonly random?: () => number;
}

/**
 * The run loop of every chain watch: runs steps; on an error of a retryable class (retry-rule.ts)
 * backs off (exponential, jittered, reset by a completed step) and runs the step again; on any
 * other error stops for good (state `failed`) after passing it to onError, so the watcher halts
 * with its operator alert. Never decided by message text. An error thrown while stopping is not a
 * failure. A step commits its own progress: a retried step starts again from what was committed.
 */
export class RunLoop {
  private readonly abort = new AbortController();
  private readonly done: Promise<void>;
  private lifecycle: RunLoopState = 'running';
  private steps = 0;
  private retries = 0;
  private failures = 0;
  private readonly errors = new Map<string, number>();
  private lastError: RunLoopStats['lastError'] = null;

  constructor(private readonly options: RunLoopOptions) {
    // Started after the owner's constructor assigned the loop (its step may read the loop's signal).
    this.done = Promise.resolve().then(() => this.run());
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get stopping(): boolean {
    return this.abort.signal.aborted;
  }

  stats(): RunLoopStats {
    return {
      state: this.lifecycle,
      steps: this.steps,
      retries: this.retries,
      errors: Object.fromEntries(this.errors),
      consecutiveFailures: this.failures,
      lastError: this.lastError,
    };
  }

  /** Resolves once the loop has ended; an in-flight step finishes its current await first. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.done;
  }

  private async run(): Promise<void> {
    const { step, idle, backoff, onError, onRetry, random } = this.options;
    while (!this.stopping) {
      let wasIdle: boolean;
      try {
        wasIdle = await step(this.abort.signal);
      } catch (error) {
        if (this.stopping) break; // stop() during a step: not a failure
        const err = error instanceof Error ? error : new Error(String(error));
        this.failures += 1;
        const cls = errorClassOf(err);
        this.errors.set(cls, (this.errors.get(cls) ?? 0) + 1);
        this.lastError = { name: err.name, message: err.message, at: new Date() };
        onError?.(err);
        if (!isRetryable(err)) {
          this.lifecycle = 'failed';
          return;
        }
        this.retries += 1;
        const delay = backoffDelay(this.failures, backoff.initialMs, backoff.maxMs, random);
        onRetry?.(err, delay);
        await sleep(delay, this.abort.signal);
        continue;
      }
      this.steps += 1;
      this.failures = 0;
      if (wasIdle && !this.stopping) await idle(this.abort.signal);
    }
    this.lifecycle = 'stopped';
  }
}
