import { ConnectionException, DeadlockException, DriverException, LockWaitTimeoutException } from '@mikro-orm/core';
import { DatabaseError } from 'pg';

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

/**
 * SQLSTATEs of a database that is away or busy, not of a wrong statement: connection exceptions
 * (08), insufficient resources (53), shut down / terminated sessions (57P01-03), serialization and
 * deadlock (40001, 40P01), lock not available (55P03), and 55000 as a new connection gets it while
 * the database does not accept connections.
 */
const TRANSIENT_SQLSTATE = /^(08|53|57P0[1-3]$|40001$|40P01$|55P03$|55000$)/;
/** Socket errors of a lost or refused database connection (Node system error codes). */
const TRANSIENT_SOCKET = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * The sink's database failures worth the same step again. A query error comes wrapped by MikroORM
 * (DriverException, with the SQLSTATE as `code`); a failure to get a connection comes as the
 * driver's own pg DatabaseError, or a Node system error (`syscall` set) when nothing answers.
 */
function isTransientStoreError(error: object): boolean {
  if (error instanceof ConnectionException || error instanceof DeadlockException || error instanceof LockWaitTimeoutException) return true;
  if (error instanceof DriverException || error instanceof DatabaseError) {
    const code = error instanceof DriverException ? (error.code ?? error.sqlState) : error.code;
    return typeof code === 'string' && (TRANSIENT_SQLSTATE.test(code) || TRANSIENT_SOCKET.has(code));
  }
  const system = error as { code?: unknown; syscall?: unknown };
  return typeof system.syscall === 'string' && typeof system.code === 'string' && TRANSIENT_SOCKET.has(system.code);
}

/** The label an error is counted under: its class (pg's DatabaseError names itself `error`). */
export function errorClassOf(error: Error): string {
  const cls = error.constructor?.name;
  return cls && cls !== 'Error' ? cls : error.name || 'Error';
}
