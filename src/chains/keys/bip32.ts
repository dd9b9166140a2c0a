import { ECDH } from 'node:crypto';
import { HDKey } from '@scure/bip32';
import { keccak_256 } from '@noble/hashes/sha3';
import { KeyMaterialError } from '../errors';
import { mnemonicToSeed } from './bip39';
import { Secp256k1PublicParent } from './secp256k1-children';
import type { NativeSecp256k1 } from './native-secp256k1';

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
 * The external chain <account>/0 of a deposit account, prepared for range derivation of the
 * deposit keys below it (secp256k1-children.ts). Keeps only public material: with a mnemonic the
 * private keys are derived here and dropped.
 */
export function secp256k1DepositChain(input: { mnemonic?: string; xpub?: string; path: string }, native: NativeSecp256k1 | null = null): Secp256k1PublicParent {
  const external = secp256k1AccountNode(input).deriveChild(0);
  return new Secp256k1PublicParent({ publicKey: external.publicKey!, chainCode: external.chainCode! }, native);
}

/** The secp256k1 key pair at a full path (hot wallets); needs the mnemonic. */
export function secp256k1PrivateNode(mnemonic: string | undefined, path: string): HDKey {
  if (!mnemonic) throw new KeyMaterialError('mnemonic_missing', `a mnemonic is required to sign (${path})`);
  return HDKey.fromMasterSeed(mnemonicToSeed(mnemonic)).derive(path);
}

/** The 20-byte keccak account id shared by EVM and TRON: keccak256(uncompressed pubkey without 0x04)[12..]. */
export function keccakAccountId(compressedPublicKey: Uint8Array): Uint8Array {
  const uncompressed = ECDH.convertKey(Buffer.from(compressedPublicKey), 'secp256k1', undefined, undefined, 'uncompressed') as Buffer;
  return keccak_256(uncompressed.subarray(1)).subarray(12);
}

/** The same 20-byte keccak account id from a 65-byte uncompressed key (0x04 || x || y): no decompression needed. */
export function keccakAccountIdOfUncompressed(uncompressedPublicKey: Uint8Array, keccak: (data: Uint8Array) => Uint8Array = keccak_256): Uint8Array {
  if (uncompressedPublicKey.length !== 65 || uncompressedPublicKey[0] !== 0x04) throw new RangeError('expected a 65-byte uncompressed secp256k1 public key');
  return keccak(uncompressedPublicKey.subarray(1)).subarray(12);
}

export function privateKeyHex(node: HDKey): string {
  if (!node.privateKey) throw new KeyMaterialError('mnemonic_missing', 'watch-only key has no private key');
  return Buffer.from(node.privateKey).toString('hex');
}
