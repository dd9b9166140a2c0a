import { ACCOUNT_SIZE, createInitializeAccount3Instruction } from '@solana/spl-token';
import { Keypair, type PublicKey, SystemProgram } from '@solana/web3.js';
import type { Payer, TokenRef } from './payer';

/**
 * A token account made from a fresh keypair (createAccount + initializeAccount3), as wallets and
 * exchanges do for auxiliary accounts: its address is on the ed25519 curve, unlike an ATA, so it
 * passes an off-curve check. Lands in the next block; returns its address.
 */
export async function keypairTokenAccount(payer: Payer, funder: Keypair, owner: PublicKey, token: TokenRef): Promise<PublicKey> {
  const account = Keypair.generate();
  const rent = Number(payer.chain.svm.minimumBalanceForRentExemption(BigInt(ACCOUNT_SIZE)));
  await payer.send(
    funder,
    [
      SystemProgram.createAccount({ fromPubkey: funder.publicKey, newAccountPubkey: account.publicKey, lamports: rent, space: ACCOUNT_SIZE, programId: token.program }),
      createInitializeAccount3Instruction(account.publicKey, token.mint, owner, token.program),
    ],
    [account],
  );
  return account.publicKey;
}
