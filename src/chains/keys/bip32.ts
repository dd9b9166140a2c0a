import { ECDH } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { KeyMaterialError } from '../errors';
import { AddonPublicNode } from './addon-bip32';
import { mnemonicToSeed } from './bip39';
import { assertChildRange } from './child-range';
import type { Secp256k1Addon } from './secp256k1-addon';

/**
 * secp256k1 BIP-32 account node (m/44'/<coin>'/<account>') from a mnemonic, or watch-only from an
 * account-level xpub. Deposit addresses are derived below it at <account>/0/<index>.
 */
export function secp256k1AccountNode(input: { mnemonic?: string; xpub?: string; path: string }): HDKey {
  // An account xpub wins: deposit keys can then stay offline (watch-only), the mnemonic only signs payouts.
  if (input.xpub) {
    try {
      return HDKey.fromExtendedKey(input.xpub);
    } catch (error) {
      throw new KeyMaterialError('xpub_invalid', `invalid account xpub for ${input.path}: ${(error as Error).message}`);
    }
  }
  if (input.mnemonic) return HDKey.fromMasterSeed(mnemonicToSeed(input.mnemonic)).derive(input.path);
  throw new KeyMaterialError('mnemonic_missing', `no mnemonic or xpub to derive ${input.path}`);
}

/**
 * The deposit keys <account>/0/i by @scure/bip32 (curve work by @noble/curves, HMAC by
 * @noble/hashes): the FIRST implementation; AddonPublicNode (addon-bip32.ts) is the second.
 *
 * With a mnemonic the chain node keeps its private key and each child is derived privately
 * (k + IL mod n, then one base-point multiplication), about half the cost of scure's public path
 * (two point decompressions, a multiplication and an addition); the child private keys are
 * dropped at once. The process holds the mnemonic anyway, so this keeps no more secret than before.
 * Watch-only (an xpub), scure derives publicly.
 */
export class ScureDepositChain {
  private readonly external: HDKey;

  constructor(account: HDKey) {
    this.external = account.deriveChild(0);
  }

  /** The 65-byte uncompressed public keys (0x04 || x || y) of children from .. from+count-1, in order. */
  childKeys(from: number, count: number): Uint8Array[] {
    assertChildRange(from, count);
    const keys: Uint8Array[] = [];
    for (let i = from; i < from + count; i++) keys.push(uncompressed(this.external.deriveChild(i).publicKey!));
    return keys;
  }
}

/**
 * @noble/curves' base-point table with 12-bit windows instead of 8 (~0.3 s and ~17 MB once per
 * thread), which makes each @scure/bip32 child ~20% cheaper (medians 287-317 against 378-419 µs
 * here, alternating runs). Only worth it in a thread that derives thousands of addresses: the
 * derivation thread builds it once its pools have asked for enough of them (worker-main.ts).
 */
export function widenBaseTable(): void {
  secp256k1.Point.BASE.precompute(12, false);
}

/** Both implementations of one deposit chain: what a codec derives its addresses with, and checks them with. */
export interface Secp256k1DepositChains {
  readonly primary: ScureDepositChain;
  readonly check: AddonPublicNode;
}

/**
 * <account>/0 for both implementations. The account node (hardened steps, or a parsed xpub) is
 * the one input they share; from it, each derives the chain node and every child on its own.
 */
export function secp256k1DepositChains(input: { mnemonic?: string; xpub?: string; path: string }, addon: Secp256k1Addon): Secp256k1DepositChains {
  const account = secp256k1AccountNode(input);
  return { primary: new ScureDepositChain(account), check: new AddonPublicNode(account.publicKey!, account.chainCode!, addon).child(0) };
}

/** The secp256k1 key pair at a full path (hot wallets); needs the mnemonic. */
export function secp256k1PrivateNode(mnemonic: string | undefined, path: string): HDKey {
  if (!mnemonic) throw new KeyMaterialError('mnemonic_missing', `a mnemonic is required to sign (${path})`);
  return HDKey.fromMasterSeed(mnemonicToSeed(mnemonic)).derive(path);
}

/**
 * A compressed key decompressed by OpenSSL (Node's crypto): neither noble nor libsecp256k1, so the
 * first implementation's address does not share this step with the second's (which gets its
 * uncompressed key from the add-on directly). ~3x cheaper here than noble's square root.
 */
function uncompressed(compressed: Uint8Array): Uint8Array {
  return ECDH.convertKey(Buffer.from(compressed), 'secp256k1', undefined, undefined, 'uncompressed') as Buffer;
}

/** The 20-byte keccak account id shared by EVM and TRON: keccak256(uncompressed pubkey without 0x04)[12..]. */
export function keccakAccountId(compressedPublicKey: Uint8Array): Uint8Array {
  return keccakAccountIdOfUncompressed(uncompressed(compressedPublicKey));
}

/** The same 20-byte keccak account id from a 65-byte uncompressed key (0x04 || x || y), with the keccak given (default @noble/hashes). */
export function keccakAccountIdOfUncompressed(uncompressedPublicKey: Uint8Array, keccak: (data: Uint8Array) => Uint8Array = keccak_256): Uint8Array {
  if (uncompressedPublicKey.length !== 65 || uncompressedPublicKey[0] !== 0x04) throw new RangeError('expected a 65-byte uncompressed secp256k1 public key');
  return keccak(uncompressedPublicKey.subarray(1)).subarray(12);
}

export function privateKeyHex(node: HDKey): string {
  if (!node.privateKey) throw new KeyMaterialError('mnemonic_missing', 'watch-only key has no private key');
  return Buffer.from(node.privateKey).toString('hex');
}
