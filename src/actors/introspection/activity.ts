import { EventEmitter } from 'node:events';
import { RingBuffer } from './ring-buffer';

export type ActorKind = 'invoice' | 'withdrawal' | 'watcher';
export const ACTOR_KINDS: readonly ActorKind[] = ['invoice', 'withdrawal', 'watcher'];

/** One thing an actor received (an event, an observation, an operator command) or committed. */
export interface ActorActivityRecord {
  readonly kind: ActorKind;
  readonly id: string;
  readonly network: string | null;
  /** The event type (`TRANSFER_SEEN`, `block`, `pause`, ...) or `committed` for a persisted change. */
  readonly type: string;
  /** JSON-serialisable details. */
  readonly payload: unknown;
  readonly at: Date;
}

export type ActivityListener = (record: ActorActivityRecord) => void;

export const DEFAULT_RECENT_EVENTS = 20;

/**
 * What the actors of one host (invoices, withdrawals, watchers) received and committed: the last
 * few records per actor (for `chainpay actors show`) and a live feed (for `actors watch` and
 * metrics). Recording never throws into the host: a failing listener is logged by nobody and
 * dropped for that record only.
 */
export class ActorActivity {
  private readonly recent = new Map<string, RingBuffer<ActorActivityRecord>>();
  private readonly feed = new EventEmitter();

  constructor(
    readonly kind: ActorKind,
    private readonly now: () => Date,
    private readonly capacity = DEFAULT_RECENT_EVENTS,
  ) {
    this.feed.setMaxListeners(0);
  }

  record(id: string, network: string | null, type: string, payload: unknown): void {
    const record: ActorActivityRecord = { kind: this.kind, id, network, type, payload, at: this.now() };
    let buffer = this.recent.get(id);
    if (!buffer) this.recent.set(id, (buffer = new RingBuffer(this.capacity)));
    buffer.push(record);
    for (const listener of this.feed.listeners('record') as ActivityListener[]) {
      try {
        listener(record);
      } catch {
        // An observer must never break the actor that reports to it.
      }
    }
  }

  /** The newest records of one actor, oldest first. */
  last(id: string): ActorActivityRecord[] {
    return this.recent.get(id)?.toArray() ?? [];
  }

  /** The actor is gone (closed): drop its buffer. */
  forget(id: string): void {
    this.recent.delete(id);
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: ActivityListener): () => void {
    this.feed.on('record', listener);
    return () => this.feed.off('record', listener);
  }
}
