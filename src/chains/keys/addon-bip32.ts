import { createHmac } from 'node:crypto';
import { assertChildRange } from './child-range';
import type { Secp256k1Addon } from './secp256k1-addon';

/**
 * BIP-32 public child derivation (CKDpub) on the secp256k1 add-on: the second, independent
 * implementation that every deposit address is checked against (bip32.ts has the first).
 *   I = HMAC-SHA512(chainCode, serP(parent) || ser32(i)); child = parent + IL·G.
 * Independent of @scure/bip32 at every step: the HMAC is Node's (OpenSSL) where scure's is
 * @noble/hashes, the point addition libsecp256k1's (or elliptic's) where scure's is @noble/curves,
 * and this code shares none of scure's.
 *
 * Watch-only and mnemonic key material alike start here from the account node's public key and
 * chain code (the hardened steps above it need the private key and run once, in scure: their
 * result is pinned by the published BIP-32/BIP-44 vectors in the tests).
 *
 * Exceptional tweaks (IL >= n, or a child at infinity; probability ~2^-127 each): the add-on
 * throws. scure throws for the first and skips to the next index for the second, so such an index
 * would not be agreed on, and the pool would stop there rather than guess.
 */
export class AddonPublicNode {
  /** serP(parent) || ser32(i): the HMAC message, its last 4 bytes rewritten per index. */
  private readonly message: Buffer;

  constructor(
    readonly publicKey: Uint8Array,
    readonly chainCode: Uint8Array,
    private readonly addon: Secp256k1Addon,
  ) {
    if (publicKey.length !== 33) throw new RangeError(`a parent public key is 33 bytes (compressed), got ${publicKey.length}`);
    if (chainCode.length !== 32) throw new RangeError(`a chain code is 32 bytes, got ${chainCode.length}`);
    this.message = Buffer.alloc(37);
    this.message.set(publicKey, 0);
  }

  /** The non-hardened child node `index`. */
  child(index: number): AddonPublicNode {
    assertChildRange(index, 1);
    const digest = this.hmac(index);
    return new AddonPublicNode(this.addon.publicKeyTweakAdd(this.publicKey, digest.subarray(0, 32), true), digest.subarray(32), this.addon);
  }

  /** The 65-byte uncompressed public keys (0x04 || x || y) of children from .. from+count-1, in order. */
  childKeys(from: number, count: number): Uint8Array[] {
    assertChildRange(from, count);
    const keys: Uint8Array[] = [];
    for (let i = from; i < from + count; i++) keys.push(this.addon.publicKeyTweakAdd(this.publicKey, this.hmac(i).subarray(0, 32), false));
    return keys;
  }

  private hmac(index: number): Buffer {
    this.message.writeUInt32BE(index, 33);
    return createHmac('sha512', this.chainCode).update(this.message).digest();
  }
}
