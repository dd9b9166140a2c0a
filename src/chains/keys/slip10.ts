import { createPrivateKey, createPublicKey } from 'node:crypto';
import { deriveED25519HardenedKey, getED25519MasterKeyFromSeed } from '@ton/crypto';
import { HDKey, HARDENED_OFFSET } from 'micro-key-producer/slip10.js';

/** An ed25519 SLIP-0010 node: the 32-byte private key (ed25519 seed), its chain code and its public key. */
export interface Ed25519Node {
  readonly key: Buffer;
  readonly chainCode: Buffer;
  readonly publicKey: Buffer;
}

/**
 * SLIP-0010 ed25519 (https://github.com/satoshilabs/slips/blob/master/slip-0010.md), hardened
 * children only: every path segment must end in `'`. Two implementations derive it, with nothing
 * in common, so that a SOLANA deposit address enters the pool only when both agree:
 * - the first: micro-key-producer's HDKey (@noble/hashes HMAC-SHA512, @noble/curves ed25519);
 * - the check: @ton/crypto's SLIP-0010 (its HMAC is Node's) and OpenSSL's ed25519 public key
 *   (Node's crypto; ~6x cheaper here than tweetnacl's, the other ed25519 at hand).
 *
 * A branch keeps both implementations' node at a fixed path (e.g. m/44'/501'), so a deposit
 * index costs the two hardened steps below it, not the whole path.
 */
export class Ed25519Branch {
  private checkNode: Promise<{ key: Buffer; chainCode: Buffer }> | undefined;

  private constructor(
    private readonly seed: Uint8Array,
    private readonly indexes: readonly number[],
    private readonly first: HDKey,
  ) {}

  /** The branch at `path` of `seed` (RangeError for a path that is not all hardened). */
  static at(seed: Uint8Array, path: string): Ed25519Branch {
    const indexes = hardenedPath(path);
    return new Ed25519Branch(seed, indexes, descend(HDKey.fromMasterSeed(seed), indexes));
  }

  /** The node at <branch>/<i0>'/<i1>'/... by the first implementation. */
  derive(below: readonly number[]): Ed25519Node {
    const node = descend(this.first, checkedIndexes(below));
    return { key: Buffer.from(node.privateKey), chainCode: Buffer.from(node.chainCode), publicKey: Buffer.from(node.publicKeyRaw) };
  }

  /** The same node by the check implementation. */
  async deriveCheck(below: readonly number[]): Promise<Ed25519Node> {
    checkedIndexes(below);
    this.checkNode ??= (async () => {
      let node = await getED25519MasterKeyFromSeed(Buffer.from(this.seed));
      for (const index of this.indexes) node = await deriveED25519HardenedKey(node, index);
      return node;
    })();
    let node = await this.checkNode;
    for (const index of below) node = await deriveED25519HardenedKey(node, index);
    return { key: Buffer.from(node.key), chainCode: Buffer.from(node.chainCode), publicKey: opensslPublicKey(node.key) };
  }
}

/** The node at a full path by the first implementation (hot wallets, TON). */
export function deriveEd25519(seed: Uint8Array, path: string): Ed25519Node {
  return Ed25519Branch.at(seed, 'm').derive(hardenedPath(path));
}

/** The node at a full path by the check implementation. */
export async function deriveEd25519Check(seed: Uint8Array, path: string): Promise<Ed25519Node> {
  return Ed25519Branch.at(seed, 'm').deriveCheck(hardenedPath(path));
}

function descend(node: HDKey, indexes: readonly number[]): HDKey {
  for (const index of indexes) node = node.deriveChild(HARDENED_OFFSET + index);
  return node;
}

function checkedIndexes(indexes: readonly number[]): readonly number[] {
  for (const index of indexes) if (!Number.isInteger(index) || index < 0 || index >= HARDENED_OFFSET) throw new RangeError(`a hardened child number is in [0, 2^31): ${index}`);
  return indexes;
}

/** RFC 8410: an Ed25519 private key is PKCS#8 with this fixed header before its 32-byte seed. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

function opensslPublicKey(seed: Uint8Array): Buffer {
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  // The JWK form names the public key alone (base64url), no DER to slice.
  return Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x!, 'base64url');
}

/** "m/44'/501'/0'/0'" -> [44, 501, 0, 0] (each hardened); "m" -> []; RangeError for anything else. */
function hardenedPath(path: string): number[] {
  const segments = path.split('/');
  if (segments.shift() !== 'm') throw new RangeError(`path must start with m: ${path}`);
  if (segments.length === 1 && segments[0] === '') return [];
  return segments.map((segment) => {
    const match = /^(\d+)'$/.exec(segment);
    const index = match ? Number(match[1]) : NaN;
    if (!Number.isSafeInteger(index) || index >= HARDENED_OFFSET) throw new RangeError(`ed25519 paths are hardened only: ${path}`);
    return index;
  });
}
