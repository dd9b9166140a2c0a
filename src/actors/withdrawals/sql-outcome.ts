import { DomainError } from '../../domain/errors';

export const UNIQUE_VIOLATION = '23505';
export const CHECK_VIOLATION = '23514';

/** SQLSTATEs after which PostgreSQL has certainly rolled the transaction back. */
const ROLLED_BACK_SQLSTATES = new Set([
  '23505', // unique_violation (a reference created concurrently, by another daemon)
  '23514', // check_violation (a balance would go negative)
  '40001', // serialization_failure
  '40P01', // deadlock_detected
]);

/** The SQLSTATE of a database error (node-postgres and MikroORM's wrapper both carry it as `code`). */
export function sqlState(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * Errors after which the transaction certainly did not commit: the database refused a statement,
 * or the COMMIT itself, with one of ROLLED_BACK_SQLSTATES (decided by the code, never by the
 * message), or our own refusal was thrown before COMMIT (a DomainError). Anything else (a
 * connection lost, a timeout: no answer from the server) leaves the outcome unknown.
 */
export function rolledBack(err: unknown): boolean {
  if (err instanceof DomainError) return true;
  const code = sqlState(err);
  return code !== undefined && ROLLED_BACK_SQLSTATES.has(code);
}
