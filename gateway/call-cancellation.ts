/**
 * Tells the daemon call made for one HTTP request that nobody waits for its answer any more (the
 * client closed its connection first): the call is then cancelled as a unary gRPC call's client
 * cancels it (gateway/relay-client.ts, DaemonClient).
 *
 * Not an AbortSignal: on Node 20, creating an AbortController's signal and listening to it cost
 * ~4-9 µs (measured on this project's machine), several percent of a relayed GET's whole CPU; this
 * is a flag and one listener.
 *
 * Invariant: the listener runs at most once, and never after `clear()`.
 */
export class CallCancellation {
  #cancelled = false;
  #listener: (() => void) | null = null;

  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** The client went away: runs the listener (if any) once. Later calls do nothing. */
  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    const listener = this.#listener;
    this.#listener = null;
    listener?.();
  }

  /** Sets the one listener (replacing any before it); runs it at once if cancelled already. */
  listen(listener: () => void): void {
    if (this.#cancelled) return listener();
    this.#listener = listener;
  }

  /** The call settled: its listener is dropped (a later cancel finds nothing to stop). */
  clear(): void {
    this.#listener = null;
  }
}
