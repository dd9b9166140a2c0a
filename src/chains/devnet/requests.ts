import { ValidationError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import { canonicalAmount } from '../amount';
import type { AddressCodec } from '../codec';

/** Input checks shared by devnet pay and payouts: what a real chain or wallet would refuse. */

export function validAddress(codec: AddressCodec, network: NetworkCode, address: string, field: string): string {
  if (!codec.isValidAddress(address)) throw new ValidationError('invalid_address', `not a valid ${network} address`, field);
  return address;
}

/** Canonical decimal string; refuses zero and more decimals than the token has. */
export function positiveAmount(amount: string, decimals: number): string {
  const canonical = canonicalAmount(amount, decimals);
  if (canonical === '0') throw new ValidationError('invalid_amount', 'amount must be greater than 0', 'amount');
  return canonical;
}
