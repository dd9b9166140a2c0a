import { createHash } from 'node:crypto';
import { sha256 } from '@noble/hashes/sha2';
import { createBase58check } from '@scure/base';
import { decode58, decode58Check, encode58 } from 'tronweb/utils';
import { ValidationError } from '../../domain/errors';
import { canonicalAmount } from '../amount';
import { assertDerivationIndex, assertDerivationRange, type AddressCodec, type CodecLinkInput, type HotWalletKey, type KeyMaterial } from '../codec';
import { UnsupportedOperationError } from '../errors';
import { keccakAccountId, keccakAccountIdOfUncompressed, privateKeyHex, secp256k1DepositChains, secp256k1PrivateNode, type Secp256k1DepositChains } from '../keys/bip32';
import { secp256k1Addon, type Secp256k1Addon } from '../keys/secp256k1-addon';

/** Deposits: m/44'/195'/0'/0/i (TronLink / Ledger). An account xpub at this path suffices to watch. */
export const TRON_DEPOSIT_ACCOUNT_PATH = "m/44'/195'/0'";
export const TRON_HOT_WALLET_PATH = "m/44'/195'/1'/0/0";

/** A TRON address is base58check(0x41 || keccak account id): "T" + 33 characters. */
const TRON_PREFIX = 0x41;
const HEX_FORM = /^41[0-9a-fA-F]{40}$/;
/** base58check by @scure/base over @noble/hashes' SHA-256: the deposit derivation's encoder (tronAddress is the check's). */
const SCURE_BASE58CHECK = createBase58check(sha256);

export class TronCodec implements AddressCodec {
  readonly family = 'tron' as const;
  /** <account>/0 of both implementations; built on first use (a bad mnemonic/xpub throws there). */
  private chains: Secp256k1DepositChains | undefined;
  private hot: HotWalletKey | undefined;

  /** `addon`: the second implementation (default: the secp256k1/keccak add-on this thread loads); tests inject a wrong one. */
  constructor(
    private readonly keys: KeyMaterial,
    private readonly addon: Secp256k1Addon = secp256k1Addon(),
  ) {}

  deriveDepositAddress(index: number): string {
    assertDerivationIndex(index);
    return this.deriveDepositAddresses(index, 1)[0]!;
  }

  /** <account>/0/from .. from+count-1 by @scure/bip32, @noble/hashes' keccak and @scure/base's base58check (noble SHA-256). */
  deriveDepositAddresses(from: number, count: number): string[] {
    assertDerivationRange(from, count);
    return this.depositChains()
      .primary.childKeys(from, count)
      .map((key) => SCURE_BASE58CHECK.encode(Buffer.concat([Buffer.of(TRON_PREFIX), keccakAccountIdOfUncompressed(key)])));
  }

  /** The same by the secp256k1 add-on's CKDpub, the keccak add-on and tronAddress (Node's SHA-256, tronweb's base58): no step shared. */
  async crossCheckDepositAddresses(from: number, count: number): Promise<string[]> {
    assertDerivationRange(from, count);
    const keccak = this.addon.keccak256;
    return this.depositChains()
      .check.childKeys(from, count)
      .map((key) => tronAddress(keccakAccountIdOfUncompressed(key, keccak)));
  }

  private depositChains(): Secp256k1DepositChains {
    this.chains ??= secp256k1DepositChains({ mnemonic: this.keys.mnemonic, xpub: this.keys.tronXpub, path: TRON_DEPOSIT_ACCOUNT_PATH }, this.addon);
    return this.chains;
  }

  sharedDepositAddress(): string {
    throw new UnsupportedOperationError('tron', 'sharedDepositAddress');
  }

  /** base58check with the 0x41 mainnet prefix (the form wallets show); hex forms are not accepted here. */
  isValidAddress(address: string): boolean {
    // tronweb's isAddressValid, with the double SHA-256 of the checksum in Node's native crypto
    // (tronweb hashes in JavaScript, which was ~4% of the daemon's CPU in a burst of withdrawals).
    if (typeof address !== 'string' || address.length !== 34) return false;
    let bytes: number[];
    try {
      bytes = decode58(address);
    } catch {
      return false; // a character outside the base58 alphabet
    }
    if (bytes.length !== 25 || bytes[0] !== TRON_PREFIX) return false;
    const payload = Buffer.from(bytes.slice(0, 21));
    const check = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest();
    return check.subarray(0, 4).equals(Buffer.from(bytes.slice(21)));
  }

  /** The base58 form is canonical (case-sensitive, unique); a 41-prefixed hex form is converted. */
  normalizeAddress(address: string): string {
    if (typeof address === 'string' && HEX_FORM.test(address)) return tronAddress(Buffer.from(address.slice(2), 'hex'));
    if (!this.isValidAddress(address)) throw new ValidationError('invalid_address', `not a TRON address: ${address}`, 'address');
    return address;
  }

  /**
   * No TRON URI standard exists; this is the shape TronLink-style wallets read:
   * tron:<to>?token=<TRC20 contract>&amount=<decimal token units>.
   */
  paymentLink(input: CodecLinkInput): string {
    const amount = canonicalAmount(input.amount, input.tokenDecimals);
    return `tron:${input.address}?token=${input.tokenContract}&amount=${amount}`;
  }

  hotWallet(): HotWalletKey {
    if (!this.hot) {
      const node = secp256k1PrivateNode(this.keys.mnemonic, TRON_HOT_WALLET_PATH);
      this.hot = { address: tronAddress(keccakAccountId(node.publicKey!)), privateKeyHex: privateKeyHex(node) };
    }
    return this.hot;
  }

  sampleAddress(seed: string): string {
    return tronAddress(createHash('sha256').update(seed).digest().subarray(0, 20));
  }
}

/**
 * 20-byte account id -> base58check TRON address. tronweb's getBase58CheckAddress, with the double
 * SHA-256 of the checksum in Node's native crypto (tronweb's JavaScript hashing was most of the cost
 * of encoding a deposit address).
 */
export function tronAddress(accountId: Uint8Array): string {
  const payload = Buffer.concat([Buffer.of(TRON_PREFIX), accountId]);
  const check = createHash('sha256').update(createHash('sha256').update(payload).digest()).digest();
  return encode58(Buffer.concat([payload, check.subarray(0, 4)]));
}

/** base58 TRON address -> 41-prefixed hex (the form TRON RPCs and event logs use). */
export function tronHex(address: string): string {
  const bytes = decode58Check(address);
  if (!bytes) throw new ValidationError('invalid_address', `not a TRON address: ${address}`, 'address');
  return Buffer.from(bytes).toString('hex');
}
