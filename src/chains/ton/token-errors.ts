import type { NetworkCode } from '../../domain/networks';
import { FamilyConfigError } from '../errors';

/**
 * init(): the jetton master's decimals (its TEP-64 metadata) are not USDT's: every amount would be
 * off by powers of ten. A configuration fault naming TON_JETTON_MASTER, so the daemon exits 78
 * (EX_CONFIG) as for SOLANA_TOKEN_MINT.
 */
export class TonJettonDecimalsError extends FamilyConfigError {
  readonly code = 'token_decimals_mismatch';
  constructor(
    readonly network: NetworkCode,
    readonly master: string,
    readonly expected: number,
    readonly actual: string,
  ) {
    super('TON_JETTON_MASTER', `${network}: jetton master ${master} has ${actual} decimals, expected ${expected}`);
  }
}
