/**
 * The two exceptional cases of BIP-32 CKDpub (IL >= n or IL = 0; a child at infinity) happen with
 * probability ~2^-127, so no real index reaches them. Here the HMAC is forced, for one index of one
 * chain code, to return a chosen IL — in Node's createHmac (used by secp256k1-children.ts) and in
 * @noble/hashes' hmac (used by @scure/bip32) alike — and both implementations must then agree.
 */
import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1';
import { mnemonicToSeed } from './bip39';
import { Secp256k1PublicParent } from './secp256k1-children';

/** What to force: the 32-byte IL of index `index` under `chainCode` (undefined: nothing forced). */
const mockForcing: { chainCode?: Buffer; index?: number; il?: Uint8Array } = {};

/** The HMAC-SHA512 result `digest` of (key, message), with IL replaced when the forcing matches. */
function mockForcedDigest(key: Uint8Array, message: Uint8Array, digest: Uint8Array): Uint8Array {
  const { chainCode, index, il } = mockForcing;
  if (!chainCode || index === undefined || !il || message.length !== 37 || !chainCode.equals(Buffer.from(key))) return digest;
  if (Buffer.from(message).readUInt32BE(33) !== index) return digest;
  const forced = new Uint8Array(digest);
  forced.set(il, 0);
  return digest instanceof Buffer ? Buffer.from(forced) : forced;
}

jest.mock('node:crypto', () => {
  const actual = jest.requireActual<typeof import('node:crypto')>('node:crypto');
  return {
    ...actual,
    createHmac: (algorithm: string, key: Uint8Array) => {
      const real = actual.createHmac(algorithm, key);
      const parts: Buffer[] = [];
      const wrapper = {
        update(data: Uint8Array) {
          parts.push(Buffer.from(data));
          real.update(data);
          return wrapper;
        },
        digest: () => mockForcedDigest(key, Buffer.concat(parts), real.digest()),
      };
      return wrapper;
    },
  };
});

jest.mock('@noble/hashes/hmac', () => {
  const actual = jest.requireActual<typeof import('@noble/hashes/hmac')>('@noble/hashes/hmac');
  const hmac = Object.assign((hash: Parameters<typeof actual.hmac>[0], key: Uint8Array, message: Uint8Array) => mockForcedDigest(key, message, actual.hmac(hash, key, message)), {
    create: actual.hmac.create,
  });
  return { ...actual, hmac };
});

const N = secp256k1.Point.CURVE().n;
const bytes32 = (k: bigint): Uint8Array => Buffer.from(k.toString(16).padStart(64, '0'), 'hex');
const hex = (key: Uint8Array): string => Buffer.from(key).toString('hex');

const privateExternal = HDKey.fromMasterSeed(mnemonicToSeed('test test test test test test test test test test test junk')).derive("m/44'/60'/0'/0");
const watchOnlyExternal = HDKey.fromExtendedKey(privateExternal.publicExtendedKey);
const uncompressed = (node: HDKey): string => hex(secp256k1.Point.fromHex(node.publicKey!).toBytes(false));

function force(index: number, il: bigint): void {
  Object.assign(mockForcing, { chainCode: Buffer.from(privateExternal.chainCode!), index, il: bytes32(il) });
}

afterEach(() => {
  delete mockForcing.chainCode;
  delete mockForcing.index;
  delete mockForcing.il;
});

describe.each([
  ['a private parent', privateExternal],
  ['a watch-only parent', watchOnlyExternal],
])('exceptional BIP-32 tweaks, as @scure/bip32 with %s', (_name, node) => {
  const parent = new Secp256k1PublicParent({ publicKey: node.publicKey!, chainCode: node.chainCode! });

  it.each([
    ['IL = n', N],
    ['IL > n', N + 1n],
    ['IL = 2^256 - 1', (1n << 256n) - 1n],
    ['IL = 0', 0n],
  ])('%s: both throw "Tweak bigger than curve order" for that index (and only that one)', (_case, il) => {
    force(7, il);
    expect(() => node.deriveChild(7)).toThrow('Tweak bigger than curve order');
    expect(() => parent.children(5, 5)).toThrow('Tweak bigger than curve order');
    expect(() => parent.children(7, 1)).toThrow('Tweak bigger than curve order');
    expect(parent.children(8, 3).map(hex)).toEqual([8, 9, 10].map((i) => uncompressed(node.deriveChild(i))));
  });

  it('a child at infinity (IL = n - k_parent): both give the key of the next index', () => {
    force(7, N - BigInt('0x' + hex(privateExternal.privateKey!)));
    const scure = node.deriveChild(7);
    expect(scure.index).toBe(8); // scure's catch: deriveChild(index + 1)
    const range = parent.children(5, 5).map(hex);
    expect(range[2]).toBe(uncompressed(scure));
    expect(range[3]).toBe(uncompressed(node.deriveChild(8)));
    expect(range[0]).toBe(uncompressed(node.deriveChild(5)));
    expect(parent.children(7, 1).map(hex)).toEqual([uncompressed(scure)]);
  });
});

it('a child at infinity at index 2^31 - 1 has no next non-hardened index: RangeError (scure, watch-only, throws too)', () => {
  const last = 2 ** 31 - 1;
  force(last, N - BigInt('0x' + hex(privateExternal.privateKey!)));
  const parent = new Secp256k1PublicParent({ publicKey: watchOnlyExternal.publicKey!, chainCode: watchOnlyExternal.chainCode! });
  expect(() => parent.children(last, 1)).toThrow(RangeError);
  expect(() => watchOnlyExternal.deriveChild(last)).toThrow();
});
