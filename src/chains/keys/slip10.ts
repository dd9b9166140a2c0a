import { deriveED25519HardenedKey, getED25519MasterKeyFromSeed, keyPairFromSeed } from '@ton/crypto';
import { HDKey, HARDENED_OFFSET } from 'micro-key-producer/slip10.js';

/** An ed25519 SLIP-0010 node: the 32-byte private key (ed25519 seed), its chain code and its public key. */
export interface Ed25519Node {
  readonly key: Buffer;
  readonly chainCode: Buffer;
  readonly publicKey: Buffer;
}

/**
 * SLIP-0010 ed25519 (https://github.com/satoshilabs/slips/blob/master/slip-0010.md), hardened
 * children only: every path segment must end in `'`. Two libraries derive it, each with its own
 * HMAC and its own curve code, so that a SOLANA deposit address enters the pool only when both agree:
 * - deriveEd25519: micro-key-producer's HDKey (@noble/hashes HMAC, @noble/curves ed25519);
 * - deriveEd25519Check: @ton/crypto's SLIP-0010 (Node's HMAC) and tweetnacl's key pair.
 */
export function deriveEd25519(seed: Uint8Array, path: string): Ed25519Node {
  let node = HDKey.fromMasterSeed(seed);
  for (const index of hardenedPath(path)) node = node.deriveChild(HARDENED_OFFSET + index);
  return { key: Buffer.from(node.privateKey), chainCode: Buffer.from(node.chainCode), publicKey: Buffer.from(node.publicKeyRaw) };
}

/** The same node by the second implementation (asynchronous: @ton/crypto's HMAC returns promises). */
export async function deriveEd25519Check(seed: Uint8Array, path: string): Promise<Ed25519Node> {
  const indexes = hardenedPath(path);
  let node = await getED25519MasterKeyFromSeed(Buffer.from(seed));
  for (const index of indexes) node = await deriveED25519HardenedKey(node, index);
  return { key: Buffer.from(node.key), chainCode: Buffer.from(node.chainCode), publicKey: Buffer.from(keyPairFromSeed(Buffer.from(node.key)).publicKey) };
}

/** "m/44'/501'/0'/0'" -> [44, 501, 0, 0] (each hardened); RangeError for anything else. */
function hardenedPath(path: string): number[] {
  const segments = path.split('/');
  if (segments.shift() !== 'm') throw new RangeError(`path must start with m: ${path}`);
  return segments.map((segment) => {
    const match = /^(\d+)'$/.exec(segment);
    const index = match ? Number(match[1]) : NaN;
    if (!Number.isSafeInteger(index) || index >= HARDENED_OFFSET) throw new RangeError(`ed25519 paths are hardened only: ${path}`);
    return index;
  });
}
