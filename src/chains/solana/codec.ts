import { createHash } from 'node:crypto';
import { PublicKey } from '@solana/web3.js';
import { base58 } from '@scure/base';
import { ValidationError } from '../../domain/errors';
import { canonicalAmount } from '../amount';
import { assertDerivationIndex, assertDerivationRange, type AddressCodec, type CodecLinkInput, type HotWalletKey, type KeyMaterial } from '../codec';
import { KeyMaterialError, UnsupportedOperationError } from '../errors';
import { mnemonicToSeed } from '../keys/bip39';
import { deriveEd25519, Ed25519Branch } from '../keys/slip10';

/** Deposit i: m/44'/501'/i'/0' (Phantom / Solflare layout). ed25519 has no watch-only xpub. */
export const solanaDepositPath = (index: number): string => `m/44'/501'/${index}'/0'`;
/** The fixed part of the deposit paths; below it, deposit i is i'/0'. */
const SOLANA_DEPOSIT_BRANCH = "m/44'/501'";
/**
 * Payout hot wallet. Not m/44'/501'/1000'/0': that is deposit index 1000, and pools grow past it.
 * Deposits always end in /0', so /1' can never collide with any of them.
 */
export const SOLANA_HOT_WALLET_PATH = "m/44'/501'/0'/1'";

export class SolanaCodec implements AddressCodec {
  readonly family = 'solana' as const;
  private seed: Buffer | undefined;
  private branch: Ed25519Branch | undefined;
  private hot: HotWalletKey | undefined;

  constructor(private readonly keys: KeyMaterial) {}

  /** SLIP-0010 by micro-key-producer (@noble/curves ed25519), base58 by @solana/web3.js (bs58). */
  deriveDepositAddress(index: number): string {
    assertDerivationIndex(index);
    return new PublicKey(this.depositBranch().derive([index, 0]).publicKey).toBase58();
  }

  /** The same by @ton/crypto's SLIP-0010, OpenSSL's ed25519 public key and @scure/base's base58: no step shared. */
  async crossCheckDepositAddresses(from: number, count: number): Promise<string[]> {
    assertDerivationRange(from, count);
    const branch = this.depositBranch();
    const addresses: string[] = [];
    for (let i = from; i < from + count; i++) addresses.push(base58.encode((await branch.deriveCheck([i, 0])).publicKey));
    return addresses;
  }

  sharedDepositAddress(): string {
    throw new UnsupportedOperationError('solana', 'sharedDepositAddress');
  }

  /** Any base58 string of exactly 32 bytes, in canonical spelling (PDAs, off-curve keys included). */
  isValidAddress(address: string): boolean {
    if (typeof address !== 'string' || address.length < 32 || address.length > 44) return false;
    try {
      return new PublicKey(address).toBase58() === address;
    } catch {
      return false;
    }
  }

  normalizeAddress(address: string): string {
    if (!this.isValidAddress(address)) throw new ValidationError('invalid_address', `not a Solana address: ${address}`, 'address');
    return address;
  }

  /** Solana Pay transfer request: solana:<recipient>?amount=<decimal>&spl-token=<mint>[&memo=…]. */
  paymentLink(input: CodecLinkInput): string {
    const amount = canonicalAmount(input.amount, input.tokenDecimals);
    const memo = input.memo === null ? '' : `&memo=${encodeURIComponent(input.memo)}`;
    return `solana:${input.address}?amount=${amount}&spl-token=${input.tokenContract}${memo}`;
  }

  hotWallet(): HotWalletKey {
    if (!this.hot) {
      const node = deriveEd25519(this.masterSeed(), SOLANA_HOT_WALLET_PATH);
      this.hot = { address: new PublicKey(node.publicKey).toBase58(), privateKeyHex: node.key.toString('hex') };
    }
    return this.hot;
  }

  sampleAddress(seed: string): string {
    return new PublicKey(createHash('sha256').update(seed).digest()).toBase58();
  }

  private depositBranch(): Ed25519Branch {
    this.branch ??= Ed25519Branch.at(this.masterSeed(), SOLANA_DEPOSIT_BRANCH);
    return this.branch;
  }

  private masterSeed(): Buffer {
    if (!this.keys.mnemonic) throw new KeyMaterialError('mnemonic_missing', 'SOLANA addresses need the mnemonic (ed25519 has no xpub)');
    this.seed ??= mnemonicToSeed(this.keys.mnemonic);
    return this.seed;
  }
}
