import { ACCOUNT_SIZE, TOKEN_2022_PROGRAM_ID, TOKEN_PROGRAM_ID } from '@solana/spl-token';
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

/** The account a payee address holds, as getAccountInfo gives it (null: no account, a fresh wallet). */
export interface PayeeAccount {
  readonly owner: PublicKey;
  readonly data: Uint8Array;
}

/**
 * Why an on-curve address still is no wallet to pay, or null: an account owned by the Token or
 * Token-2022 program (a token account made from a keypair is on the curve; a mint too). Tokens sent
 * "to" it go to the ATA of an address nobody signs for as a wallet: lost. A token account names
 * its owner (bytes 32..64 of its data), the wallet the payee meant.
 */
export function tokenAccountRefusal(address: string, account: PayeeAccount | null): { code: string; message: string; owner: string | null } | null {
  if (account === null) return null;
  const program = account.owner.equals(TOKEN_PROGRAM_ID) ? 'Token' : account.owner.equals(TOKEN_2022_PROGRAM_ID) ? 'Token-2022' : null;
  if (program === null) return null;
  const owner = account.data.length >= ACCOUNT_SIZE ? new PublicKey(account.data.subarray(32, 64)).toBase58() : null;
  return {
    code: 'address_token_account',
    message: owner
      ? `${address} is a token account of the ${program} program, not a wallet; give its owner's wallet address ${owner}`
      : `${address} is an account of the ${program} program (a mint), not a wallet; give a wallet address`,
    owner,
  };
}
