import {
  createAssociatedTokenAccountIdempotentInstruction,
  createMintToCheckedInstruction,
  createSetAuthorityInstruction,
  createTransferCheckedInstruction,
  AuthorityType,
  getAssociatedTokenAddressSync,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
} from '@solana/spl-token';
import { Connection, Keypair, PublicKey, Transaction, type TransactionInstruction } from '@solana/web3.js';
import { USDT_MINT, type SvmChain } from './svm-chain';

export interface TokenRef {
  readonly mint: PublicKey;
  readonly program: PublicKey;
  readonly decimals: number;
}

export const USDT: TokenRef = { mint: new PublicKey(USDT_MINT), program: TOKEN_PROGRAM_ID, decimals: 6 };

/**
 * The buyer's side: a wallet that sends SPL tokens with web3.js and spl-token through a Connection
 * to the harness RPC (so every payment goes through sendTransaction and lands in a block).
 */
export class Payer {
  readonly connection: Connection;

  constructor(
    readonly chain: SvmChain,
    url: string,
  ) {
    this.connection = new Connection(url, 'confirmed');
  }

  /** A new wallet with SOL and `units` of `token` in its ATA (minted by the harness's authority). */
  async wallet(units: bigint, token: TokenRef = USDT): Promise<Keypair> {
    const kp = Keypair.generate();
    this.chain.airdrop(kp.publicKey, 10);
    if (units > 0n) await this.mint(kp.publicKey, units, token);
    return kp;
  }

  /** Mints `units` to `owner`'s ATA (creating it); lands in the next block. */
  async mint(owner: PublicKey, units: bigint, token: TokenRef = USDT): Promise<string> {
    const auth = this.chain.mintAuthority;
    const ata = getAssociatedTokenAddressSync(token.mint, owner, true, token.program);
    return this.send(auth, [
      createAssociatedTokenAccountIdempotentInstruction(auth.publicKey, ata, owner, token.mint, token.program),
      createMintToCheckedInstruction(token.mint, ata, auth.publicKey, units, token.decimals, [], token.program),
    ]);
  }

  /** A wallet's transfer to `to`'s ATA, creating it when `createAta` (the payer's wallet does that). */
  pay(from: Keypair, to: string, units: bigint, token: TokenRef = USDT, createAta = true): Promise<string> {
    const owner = new PublicKey(to);
    const source = getAssociatedTokenAddressSync(token.mint, from.publicKey, false, token.program);
    const dest = getAssociatedTokenAddressSync(token.mint, owner, true, token.program);
    const ixs: TransactionInstruction[] = [];
    if (createAta) ixs.push(createAssociatedTokenAccountIdempotentInstruction(from.publicKey, dest, owner, token.mint, token.program));
    ixs.push(createTransferCheckedInstruction(source, token.mint, dest, from.publicKey, units, token.decimals, [], token.program));
    return this.send(from, ixs);
  }

  /** Creates `owner`'s ATA, empty (a wallet that held the token before). */
  createAta(payerKey: Keypair, owner: PublicKey, token: TokenRef = USDT): Promise<string> {
    const ata = getAssociatedTokenAddressSync(token.mint, owner, true, token.program);
    return this.send(payerKey, [createAssociatedTokenAccountIdempotentInstruction(payerKey.publicKey, ata, owner, token.mint, token.program)]);
  }

  /** Hands the ownership of `owner`'s ATA to `newOwner` (an authority change, no payment). */
  setOwner(owner: Keypair, newOwner: PublicKey, token: TokenRef = USDT): Promise<string> {
    const ata = getAssociatedTokenAddressSync(token.mint, owner.publicKey, false, token.program);
    return this.send(owner, [createSetAuthorityInstruction(ata, owner.publicKey, AuthorityType.AccountOwner, newOwner, [], token.program)]);
  }

  async send(signer: Keypair, ixs: TransactionInstruction[], extraSigners: Keypair[] = []): Promise<string> {
    const { blockhash, lastValidBlockHeight } = await this.connection.getLatestBlockhash('confirmed');
    const tx = new Transaction({ feePayer: signer.publicKey, blockhash, lastValidBlockHeight }).add(...ixs);
    tx.sign(signer, ...extraSigners);
    return this.connection.sendRawTransaction(tx.serialize(), { skipPreflight: true });
  }
}

/** A Token-2022 mint with USDT's decimals: a look-alike that must never count. */
export function plantLookAlike(chain: SvmChain): TokenRef {
  const mint = Keypair.generate().publicKey;
  chain.plantMint(mint.toBase58(), TOKEN_2022_PROGRAM_ID, 6);
  return { mint, program: TOKEN_2022_PROGRAM_ID, decimals: 6 };
}

/** Another classic-Token mint with 6 decimals: not USDT. */
export function plantOtherMint(chain: SvmChain): TokenRef {
  const mint = Keypair.generate().publicKey;
  chain.plantMint(mint.toBase58(), TOKEN_PROGRAM_ID, 6);
  return { mint, program: TOKEN_PROGRAM_ID, decimals: 6 };
}
