/**
 * Chain-layer errors that are configuration or programming faults (not client input).
 * Input refusals (bad address, too many decimals, reorg too deep) are domain ValidationErrors.
 */

export type KeyMaterialErrorCode = 'mnemonic_missing' | 'mnemonic_invalid' | 'xpub_invalid';

/** The key material cannot produce what was asked: no mnemonic, a mistyped mnemonic, a bad xpub. */
export class KeyMaterialError extends Error {
  override readonly name = 'KeyMaterialError';
  constructor(
    readonly code: KeyMaterialErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** The operation does not exist for this chain family (e.g. a derived deposit address on TON). */
export class UnsupportedOperationError extends Error {
  override readonly name = 'UnsupportedOperationError';
  constructor(
    readonly family: string,
    readonly operation: string,
  ) {
    super(`${operation} is not supported on ${family}`);
  }
}

/** Live mode asked for a network whose family has no live adapter registered. */
export class AdapterUnavailableError extends Error {
  override readonly name = 'AdapterUnavailableError';
  constructor(
    readonly network: string,
    readonly mode: 'devnet' | 'live',
  ) {
    super(`no ${mode} chain adapter for ${network}`);
  }
}

/** A live network was asked of a devnet registry: simulated and real chains never run side by side. */
export class ChainModeMixError extends Error {
  override readonly name = 'ChainModeMixError';
  constructor(readonly network: string) {
    super(`${network} has live chain options, but the chains run in devnet mode: devnet and live never mix in one daemon`);
  }
}

/**
 * A family's environment variable is missing, malformed or contradicts another (family.ts). The
 * configuration turns it into its ConfigError (exit 78), naming the same variable.
 */
export class FamilyConfigError extends Error {
  override readonly name = 'FamilyConfigError';
  constructor(
    readonly variable: string,
    readonly reason: string,
  ) {
    super(`invalid configuration: ${variable}: ${reason}`);
  }
}

/**
 * A saved cursor is not of this family's shape (the network changed family, or a row was edited):
 * the watcher halts rather than guess where to resume.
 */
export class InvalidCursorError extends Error {
  override readonly name = 'InvalidCursorError';
  readonly code = 'invalid_cursor';
  constructor(
    readonly network: string,
    readonly cursor: unknown,
  ) {
    super(`${network}: the saved cursor is not a cursor of this chain family`);
  }
}

/**
 * What an operator must do before a payout can be signed, carried by a family's error as
 * `operatorAlert`: the withdrawal keeps its hold and signing is retried (not a failure), and the
 * host logs an error line with this `alert` (docs/operations.md, Logs).
 */
export type PayoutOperatorAlert = 'hot_wallet_underfunded' | 'payout_fee_limit_too_low';

/** The operator alert a payout error carries, if any (by its property, never by its message). */
export function operatorAlertOf(error: unknown): PayoutOperatorAlert | undefined {
  const alert = (error as { operatorAlert?: unknown } | null)?.operatorAlert;
  return alert === 'hot_wallet_underfunded' || alert === 'payout_fee_limit_too_low' ? alert : undefined;
}
