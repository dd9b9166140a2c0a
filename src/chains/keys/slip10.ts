import { createHmac } from 'node:crypto';

/** An ed25519 SLIP-0010 node: the 32-byte private key (ed25519 seed) and its chain code. */
export interface Ed25519Node {
  readonly key: Buffer;
  readonly chainCode: Buffer;
}

const HARDENED = 0x80000000;

/**
 * SLIP-0010 ed25519 derivation (https://github.com/satoshilabs/slips/blob/master/slip-0010.md).
 * ed25519 has hardened children only, so every path segment must end in `'`.
 */
export function deriveEd25519(seed: Uint8Array, path: string): Ed25519Node {
  const segments = path.split('/');
  if (segments.shift() !== 'm') throw new RangeError(`path must start with m: ${path}`);
  let node = split(createHmac('sha512', 'ed25519 seed').update(seed).digest());
  for (const segment of segments) {
    const match = /^(\d+)'$/.exec(segment);
    const index = match ? Number(match[1]) : NaN;
    if (!Number.isInteger(index) || index >= HARDENED) throw new RangeError(`ed25519 paths are hardened only: ${path}`);
    const data = Buffer.alloc(37);
    node.key.copy(data, 1); // 0x00 || key || ser32(index + 2^31)
    data.writeUInt32BE(index + HARDENED, 33);
    node = split(createHmac('sha512', node.chainCode).update(data).digest());
  }
  return node;
}

function split(digest: Buffer): Ed25519Node {
  return { key: digest.subarray(0, 32), chainCode: digest.subarray(32) };
}
