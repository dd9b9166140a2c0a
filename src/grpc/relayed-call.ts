import { EventEmitter } from 'node:events';
import { status, type Metadata } from '@grpc/grpc-js';
import type { RelayResult } from './generated/chainpay/v1/relay';

/** A relayed call's outcome: what goes back as its RelayResult (the id aside). */
export type RelayOutcome = Omit<RelayResult, 'id'>;

/**
 * How a relayed call reports its end: its outcome (null: cancelled, no result), its id, and the
 * call itself (null when it was refused before any handler ran). One function per relay stream,
 * not a closure per call.
 */
export type Settle = (outcome: RelayOutcome | null, id: number, call: RelayedCall | null) => void;

/**
 * The ServerUnaryCall a relayed call's handler gets, behaving as grpc-js's does on a unary call:
 * its request and metadata; getDeadline() is the deadline the caller set (RelayCall.timeout_ms
 * counted from the call's arrival, as grpc-js counts grpc-timeout) or Infinity; once that deadline
 * passes the call is answered DEADLINE_EXCEEDED, and then, like a call its caller cancelled, it
 * turns `cancelled` and emits 'cancelled' (on the next tick, as grpc-js does).
 *
 * The deadline is watched by the call's relay stream (one timer for all its calls,
 * src/lib/deadline-timer.ts), which calls `expire`.
 *
 * Invariant: `settle` is called exactly once, by whichever comes first: the handler's answer
 * (`finish`), the deadline (DEADLINE_EXCEEDED) or the caller's cancel (null: no result is sent).
 * Whatever the handler answers after that is dropped; a handler that already wrote keeps what it
 * wrote (nothing is rolled back: cancellation only tells a handler that nobody waits any more).
 */
export class RelayedCall extends EventEmitter {
  cancelled = false;
  /** ms since the epoch; Infinity: none (timeout_ms 0). */
  readonly deadline: number;
  /** Its index in its stream's list of running calls (RelayStream), -1 when in none. */
  slot = -1;
  #done = false;

  constructor(
    /** The RelayCall's id, unique among its stream's calls in flight. */
    readonly id: number,
    readonly request: unknown,
    readonly metadata: Metadata,
    private readonly path: string,
    timeoutMs: number,
    private readonly settle: Settle,
  ) {
    super();
    this.deadline = timeoutMs > 0 ? Date.now() + timeoutMs : Infinity;
  }

  /** Whether the call has its outcome (answered, expired or cancelled). */
  get done(): boolean {
    return this.#done;
  }

  /** The handler's answer; ignored once the call is done. */
  finish(outcome: RelayOutcome): void {
    if (!this.#close()) return;
    this.settle(outcome, this.id, this);
  }

  /** The caller gave up on the call (a cancel message, or the relay stream's end): no result. */
  cancel(): void {
    if (!this.#close()) return;
    this.#markCancelled();
    this.settle(null, this.id, this);
  }

  /** The deadline passed before the handler answered (called by its stream's DeadlineTimer). */
  expire(): void {
    if (!this.#close()) return;
    this.settle({ code: status.DEADLINE_EXCEEDED, response: Buffer.alloc(0), details: 'Deadline exceeded', trailers: [] }, this.id, this);
    this.#markCancelled();
  }

  getPath(): string {
    return this.path;
  }
  getPeer(): string {
    return 'relay';
  }
  getDeadline(): number {
    return this.deadline;
  }
  getHost(): string {
    return 'relay';
  }
  sendMetadata(): void {}

  #close(): boolean {
    if (this.#done) return false;
    this.#done = true;
    return true;
  }

  #markCancelled(): void {
    this.cancelled = true;
    process.nextTick(emitCancelled, this);
  }
}

// A module function rather than a per-call closure: see Relay#answer on tsx's keepNames.
function emitCancelled(call: RelayedCall): void {
  call.emit('cancelled', 'cancelled');
}
