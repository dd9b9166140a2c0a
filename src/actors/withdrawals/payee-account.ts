import type { Logger } from 'pino';
import type { ChainAdapter } from '../../chains/types';
import { UnavailableError, ValidationError } from '../../domain/errors';

/**
 * The chain's say on a payout address, beyond its format (ChainAdapter.payeeAccountRefusal;
 * SOLANA: an account the Token or Token-2022 program owns is no wallet): a refusal is a 422 with
 * the family's code, on `address`.
 *
 * - `listing` (whitelisting is where an address is vetted): a node that does not answer refuses the
 *   listing for now, 503 `chain_unavailable` (retry).
 * - `withdrawal`: a node that does not answer lets the withdrawal through (its address was vetted
 *   when listed, and signPayout asks again before anything is signed), with a warning.
 */
export async function checkPayeeAccount(adapter: ChainAdapter | undefined, network: string, address: string, mode: 'listing' | 'withdrawal', logger?: Logger): Promise<void> {
  if (!adapter?.payeeAccountRefusal) return;
  let refusal: { readonly code: string; readonly message: string } | null;
  try {
    refusal = await adapter.payeeAccountRefusal(address);
  } catch (err) {
    if (mode === 'listing') throw new UnavailableError('chain_unavailable', `could not check ${address} on ${network}: its node did not answer; retry`, { network });
    logger?.warn({ err, network, address }, 'payee account check did not answer; signing checks it again');
    return;
  }
  if (refusal) throw new ValidationError(refusal.code, refusal.message, 'address');
}
