import { PublicKey } from '@solana/web3.js';

/**
 * Why a valid Solana address cannot receive a payout, or null. A payee must be a wallet (an ed25519
 * public key, on the curve): an off-curve address is a program-derived address, usually a token
 * account pasted instead of its owner; tokens sent "to" it would go to an ATA nobody can sign for.
 */
export function offCurveRefusal(address: string): { code: string; message: string } | null {
  let key: PublicKey;
  try {
    key = new PublicKey(address);
  } catch {
    return { code: 'invalid_address', message: `not a Solana address: ${address}` };
  }
  if (PublicKey.isOnCurve(key.toBytes())) return null;
  return {
    code: 'address_off_curve',
    message: `${address} is not a wallet address (off the ed25519 curve: a token account or program address); give the wallet (owner) address`,
  };
}
