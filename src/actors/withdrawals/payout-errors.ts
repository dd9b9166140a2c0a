import { ConflictError, DomainError, UnavailableError, ValidationError, type DomainErrorDetails } from '../../domain/errors';
import { operatorAlertOf } from '../../chains/errors';
import { AWAITING_FUNDS, NEEDS_OPERATOR_CODES, PAYOUT_EXPIRED } from '../../domain/withdrawal-context';

/**
 * Adapter failures that make this signed transaction hopeless, so the withdrawal fails and its hold
 * is released: the transfer would revert, or the transaction is invalid (adapter codes, read by
 * value so this module needs no chain SDK). Everything else is retried, except NEEDS_OPERATOR_CODES
 * (a nonce used by "another" transaction, as far as one node can tell): the withdrawal then waits
 * for an operator, never released on that signal alone; and PAYOUT_EXPIRED (chains/types.ts
 * PAYOUT_EXPIRED_CODE): too late to send, the status check decides what follows.
 */
const PERMANENT_CODES = new Set(['payout_rejected', 'payout_invalid', 'invalid_address', 'invalid_amount']);

/**
 * A family's own refusal because the hot wallet lacks USDT or the gas coin (found while signing, e.g.
 * when the balance fell between the host's check and the signature): the same wait as the host's
 * check (AWAITING_FUNDS), never a failure. By code, or by the error's `operatorAlert`.
 */
const FUNDS_SHORT_CODES = new Set(['payout_insufficient_gas', 'payout_insufficient_token']);

/**
 * An adapter error -> the DomainError the withdrawal machine acts on, by its code. The adapter's
 * message (built from its structured details, no secret in it) is kept: it becomes the failed
 * withdrawal's failure_reason, so it must say what happened in words an operator can act on.
 */
export function classifyPayoutError(error: unknown): unknown {
  if (error instanceof DomainError) return error.code === PAYOUT_EXPIRED && error.kind !== 'unavailable' ? expired(error) : error;
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : String(code);
  const details = plainDetails((error as { details?: unknown } | null)?.details);
  if (code === PAYOUT_EXPIRED) return new UnavailableError(PAYOUT_EXPIRED, message, details);
  if ((typeof code === 'string' && FUNDS_SHORT_CODES.has(code)) || operatorAlertOf(error) === 'hot_wallet_underfunded') return new UnavailableError(AWAITING_FUNDS, message, details);
  if (typeof code === 'string' && NEEDS_OPERATOR_CODES.includes(code)) return new ConflictError(code, message, undefined, details);
  if (typeof code === 'string' && PERMANENT_CODES.has(code)) return new ValidationError(code, message, undefined, details);
  return error;
}

/** An expired payout is never a reason to fail the withdrawal, whatever kind the adapter gave it. */
function expired(error: DomainError): UnavailableError {
  return new UnavailableError(PAYOUT_EXPIRED, error.message, error.details);
}

/** The scalar entries of an adapter error's details (DomainErrorDetails holds nothing else). */
function plainDetails(details: unknown): DomainErrorDetails {
  if (details === null || typeof details !== 'object') return {};
  const out: DomainErrorDetails = {};
  for (const [k, v] of Object.entries(details)) {
    if (v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = v;
  }
  return out;
}
