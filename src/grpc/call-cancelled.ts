/**
 * A handler stopped before its first write because nobody waits for its answer any more: the
 * caller cancelled the call, or its deadline passed (grpc-js sets `call.cancelled` for both, and so
 * does a relayed call: src/grpc/relayed-call.ts). Answered CANCELLED (toServiceError), which no
 * caller receives: grpc-js drops a cancelled call's status, the relay a cancelled call's result.
 */
export class CallCancelledError extends Error {
  override readonly name = 'CallCancelledError';

  constructor(readonly rpc: string) {
    super('the call was cancelled before anything was written');
  }
}

/**
 * Throws CallCancelledError when the call was cancelled. Called right before a handler's first
 * write and nowhere after it: from its first write on, a handler runs to its end (a commit is
 * never abandoned half-way, and a committed one is still answered).
 */
export function stopIfCancelled(call: { readonly cancelled: boolean }, rpc: string): void {
  if (call.cancelled) throw new CallCancelledError(rpc);
}
