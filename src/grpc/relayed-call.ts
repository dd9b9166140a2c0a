import { EventEmitter } from 'node:events';
import { status, type Metadata } from '@grpc/grpc-js';
import type { RelayResult } from './generated/chainpay/v1/relay';

/** A relayed call's outcome: what goes back as its RelayResult (the id aside). */
export type RelayOutcome = Omit<RelayResult, 'id'>;

/**
 * setTimeout holds at most 2^31-1 ms (~24.8 days); a longer wait would fire at once. A relayed
 * timeout beyond it (RelayCall.timeout_ms is a uint32) expires after that long.
 */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The ServerUnaryCall a relayed call's handler gets, behaving as grpc-js's does on a unary call:
 * its request and metadata; getDeadline() is the deadline the caller set (RelayCall.timeout_ms
 * counted from the call's arrival, as grpc-js counts grpc-timeout) or Infinity; once that deadline
 * passes the call is answered DEADLINE_EXCEEDED, and then, like a call its caller cancelled, it
 * turns `cancelled` and emits 'cancelled' (on the next tick, as grpc-js does).
 *
 * Invariant: `settle` is called exactly once, by whichever comes first: the handler's answer
 * (`finish`), the deadline (DEADLINE_EXCEEDED) or the caller's cancel (null: no result is sent).
 * Whatever the handler answers after that is dropped; a handler that already wrote keeps what it
 * wrote (nothing is rolled back: cancellation only tells a handler that nobody waits any more).
 */
export class RelayedCall extends EventEmitter {
  cancelled = false;
  readonly #deadline: number;
  #done = false;
  #timer: NodeJS.Timeout | null = null;

  constructor(
    readonly request: unknown,
    readonly metadata: Metadata,
    private readonly path: string,
    timeoutMs: number,
    private readonly settle: (outcome: RelayOutcome | null) => void,
  ) {
    super();
    if (timeoutMs > 0) {
      this.#deadline = Date.now() + timeoutMs;
      this.#timer = setTimeout(expire, Math.min(timeoutMs, MAX_TIMER_MS), this);
    } else {
      this.#deadline = Infinity;
    }
  }

  /** Whether the call has its outcome (answered, expired or cancelled). */
  get done(): boolean {
    return this.#done;
  }

  /** The handler's answer; ignored once the call is done. */
  finish(outcome: RelayOutcome): void {
    if (!this.#close()) return;
    this.settle(outcome);
  }

  /** The caller gave up on the call (a cancel message, or the relay stream's end): no result. */
  cancel(): void {
    if (!this.#close()) return;
    this.#markCancelled();
    this.settle(null);
  }

  /** The deadline passed before the handler answered. */
  expire(): void {
    this.#timer = null;
    if (!this.#close()) return;
    this.settle({ code: status.DEADLINE_EXCEEDED, response: Buffer.alloc(0), details: 'Deadline exceeded', trailers: [] });
    this.#markCancelled();
  }

  getPath(): string {
    return this.path;
  }
  getPeer(): string {
    return 'relay';
  }
  getDeadline(): number {
    return this.#deadline;
  }
  getHost(): string {
    return 'relay';
  }
  sendMetadata(): void {}

  #close(): boolean {
    if (this.#done) return false;
    this.#done = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
    return true;
  }

  #markCancelled(): void {
    this.cancelled = true;
    process.nextTick(emitCancelled, this);
  }
}

// Module functions rather than per-call closures: see Relay#answerOnce on tsx's keepNames.
function expire(call: RelayedCall): void {
  call.expire();
}

function emitCancelled(call: RelayedCall): void {
  call.emit('cancelled', 'cancelled');
}
