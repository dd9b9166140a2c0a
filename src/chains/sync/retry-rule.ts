import { ConnectionException, DeadlockException, DriverException, LockWaitTimeoutException } from '@mikro-orm/core';

/**
 * The one retry rule of every chain watch loop (RunLoop) and of the watcher that halts on what the
 * loop gives up on. Decided by class and code, never by message text:
 * - an error whose class declares `retryable: true` (ChainSyncError subclasses: RPC transient,
 *   timeout, range refused, inconsistent answers, SOLANA -32004/-32009, TRON node/rate limit; TON
 *   TonProviderTransientError: 429/5xx/no answer once the client's own retries are spent);
 * - a transient failure of the sink's database (deadlock/serialization, lock wait, lost connection),
 *   by MikroORM exception class or the driver's SQLSTATE / socket error code;
 * everything else (a reorg beyond finality, a TON history gap, a parsing bug, an unmapped error) is
 * fatal: the loop stops and the watcher halts with the `watcher_halted` alert.
 */
export function isRetryable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const declared = (error as { retryable?: unknown }).retryable;
  if (typeof declared === 'boolean') return declared;
  return isTransientStoreError(error);
}

/** SQLSTATE classes / codes of a database that is away or busy, not of a wrong statement. */
const TRANSIENT_SQLSTATE = /^(08|53|57P0[1-3]|40001|40P01|55P03)/;
/** Socket errors of a lost or refused database connection (Node system error codes). */
const TRANSIENT_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

function isTransientStoreError(error: object): boolean {
  if (error instanceof ConnectionException || error instanceof DeadlockException || error instanceof LockWaitTimeoutException) return true;
  if (!(error instanceof DriverException)) return false;
  const code = error.code ?? error.sqlState;
  return typeof code === 'string' && (TRANSIENT_SQLSTATE.test(code) || TRANSIENT_SOCKET.has(code));
}

/** The label an error is counted under: its class name (`Error` for an anonymous one). */
export function errorClassOf(error: Error): string {
  return error.name || 'Error';
}
