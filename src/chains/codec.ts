/**
 * Address codecs: per chain family, everything about addresses that needs no network access.
 * Live adapters and the devnet share them, so devnet addresses have the real format.
 */

/** Seed material of the deposit wallets and the payout hot wallet. */
export interface KeyMaterial {
  /** BIP-39 English mnemonic: every family derives from its seed (see each codec for the paths). */
  mnemonic?: string;
  /** EVM account-level xpub (m/44'/60'/0'): watch-only deposit derivation when no mnemonic is given. */
  xpub?: string;
  /** TRON account-level xpub (m/44'/195'/0'): watch-only deposit derivation when no mnemonic is given. */
  tronXpub?: string;
}

export interface CodecLinkInput {
  readonly address: string;
  /**
   * The address exactly as this codec derived it (a pool row's `address`): already in its display
   * form, so it is used as it is (on EVM: not checksummed again, a keccak per invoice).
   */
  readonly derived?: boolean;
  /** Decimal string in token units; more decimals than the token has are refused. */
  readonly amount: string;
  readonly memo: string | null;
  readonly tokenContract: string;
  readonly tokenDecimals: number;
  /** EVM only (EIP-681 `@chainId`). */
  readonly chainId?: number;
}

export interface HotWalletKey {
  readonly address: string;
  /**
   * 32-byte private key as 64 lowercase hex characters WITHOUT a 0x prefix
   * (secp256k1 key on EVM/TRON; the ed25519 seed on SOLANA/TON).
   */
  readonly privateKeyHex: string;
}

export interface AddressCodec {
  /** The id of the family whose format this is (ChainFamilyDefinition.id). */
  readonly family: string;
  /** Deposit address number `index` (address_pool networks); throws UnsupportedOperationError on TON. */
  deriveDepositAddress(index: number): string;
  /**
   * Deposit addresses from .. from+count-1, in order, each equal to deriveDepositAddress(i). Only
   * where a range is cheaper per address than one index at a time (EVM, TRON: the chain node is
   * derived once per range); elsewhere absent, and callers derive one index at a time (which also
   * paces a refill per address).
   */
  deriveDepositAddresses?(from: number, count: number): string[];
  /**
   * The same addresses from .. from+count-1 derived by a SECOND, independent implementation (other
   * BIP-32 / SLIP-0010 code, curve library, hash and encoder: see each codec). A deposit address
   * enters the pool only where both agree (store/repos/address-pool.ts refillPool). Rejects with
   * UnsupportedOperationError on TON.
   */
  crossCheckDepositAddresses(from: number, count: number): Promise<string[]>;
  /** The shared deposit address (master_memo: TON); throws UnsupportedOperationError elsewhere. */
  sharedDepositAddress(): string;
  /** Format check used by the withdrawal whitelist; never throws. */
  isValidAddress(address: string): boolean;
  /** Canonical key for watched-address sets; throws a ValidationError (invalid_address) on garbage. */
  normalizeAddress(address: string): string;
  /**
   * normalizeAddress for an address this codec derived (valid by construction), skipping the
   * validation of outside input. Only where that validation costs (EVM: the EIP-55 checksum is a
   * keccak); elsewhere absent, and callers use normalizeAddress.
   */
  normalizeDerivedAddress?(address: string): string;
  /** The wallet link of an invoice QR code (DESIGN.md, QR codes and payment links). */
  paymentLink(input: CodecLinkInput): string;
  /** Hot-wallet signing key for payouts, derived at an account path apart from the deposits. */
  hotWallet(): HotWalletKey;
  /** A valid address derived from `seed` only (not from our keys): devnet buyers, look-alike tokens. */
  sampleAddress(seed: string): string;
}

/** Deposit indexes are BIP-32 child numbers: 0 <= index < 2^31. */
export function assertDerivationIndex(index: number): void {
  if (!Number.isInteger(index) || index < 0 || index >= 0x80000000) {
    throw new RangeError(`derivation index must be an integer in [0, 2^31): ${index}`);
  }
}

/** A range of deposit indexes: count >= 0 indexes from `from`, all in [0, 2^31). */
export function assertDerivationRange(from: number, count: number): void {
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`derivation count must be a non-negative integer: ${count}`);
  assertDerivationIndex(from);
  if (count > 0) assertDerivationIndex(from + count - 1);
}
