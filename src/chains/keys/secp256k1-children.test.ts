import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1';
import { mnemonicToSeed } from './bip39';
import { assertOnCurve, deriveChildPublicKeys, Secp256k1PublicParent } from './secp256k1-children';

const JUNK = 'test test test test test test test test test test test junk';
/** <account>/0 from a mnemonic (a private node) and the same node watch-only (from its xpub). */
const privateExternal = HDKey.fromMasterSeed(mnemonicToSeed(JUNK)).derive("m/44'/60'/0'/0");
const watchOnlyExternal = HDKey.fromExtendedKey(HDKey.fromMasterSeed(mnemonicToSeed(JUNK)).derive("m/44'/195'/0'").publicExtendedKey).deriveChild(0);

const parentOf = (node: HDKey) => ({ publicKey: node.publicKey!, chainCode: node.chainCode! });
/** The reference: @scure/bip32's deriveChild, its compressed key expanded by noble. */
const scureChild = (node: HDKey, index: number): Uint8Array => secp256k1.Point.fromHex(node.deriveChild(index).publicKey!).toBytes(false);

const LARGE = [1000, 65_535, 65_536, 16_777_216, 2 ** 31 - 2, 2 ** 31 - 1];

describe.each([
  ['a mnemonic-derived (private) parent', privateExternal],
  ['an xpub (watch-only) parent', watchOnlyExternal],
])('Secp256k1PublicParent with %s', (_name, node) => {
  const parent = new Secp256k1PublicParent(parentOf(node));

  it('gives byte-identical children to @scure/bip32 for indexes 0..300 derived as one range', () => {
    const children = parent.children(0, 301);
    expect(children).toHaveLength(301);
    children.forEach((key, i) => expect(Buffer.from(key).toString('hex')).toBe(Buffer.from(scureChild(node, i)).toString('hex')));
  });

  it('gives the same child for an index whatever range it is derived in', () => {
    const whole = parent.children(100, 64);
    for (const [from, count] of [[100, 1], [100, 16], [117, 32], [150, 14], [163, 1]] as const) {
      expect(parent.children(from, count)).toEqual(whole.slice(from - 100, from - 100 + count));
    }
    expect(deriveChildPublicKeys(parentOf(node), 117, 5)).toEqual(whole.slice(17, 22));
  });

  it('matches @scure/bip32 at large indexes up to 2^31 - 1', () => {
    for (const i of LARGE) expect(parent.children(i, 1)[0]).toEqual(scureChild(node, i));
    expect(parent.children(2 ** 31 - 3, 3)).toEqual([2 ** 31 - 3, 2 ** 31 - 2, 2 ** 31 - 1].map((i) => scureChild(node, i)));
  });

  it('returns 65-byte uncompressed keys (0x04 || x || y)', () => {
    for (const key of parent.children(0, 8)) {
      expect(key).toBeInstanceOf(Uint8Array);
      expect(key).toHaveLength(65);
      expect(key[0]).toBe(0x04);
    }
  });
});

describe('Secp256k1PublicParent input checks', () => {
  const parent = new Secp256k1PublicParent(parentOf(privateExternal));

  it('refuses hardened, negative, fractional or overflowing ranges; an empty range is empty', () => {
    expect(parent.children(5, 0)).toEqual([]);
    expect(() => parent.children(-1, 1)).toThrow(RangeError);
    expect(() => parent.children(0, -1)).toThrow(RangeError);
    expect(() => parent.children(1.5, 1)).toThrow(RangeError);
    expect(() => parent.children(0, 1.5)).toThrow(RangeError);
    expect(() => parent.children(2 ** 31, 1)).toThrow(RangeError);
    expect(() => parent.children(2 ** 31 - 1, 2)).toThrow(RangeError);
  });

  it('refuses a malformed parent', () => {
    expect(() => new Secp256k1PublicParent({ publicKey: privateExternal.publicKey!.subarray(1), chainCode: privateExternal.chainCode! })).toThrow(RangeError);
    expect(() => new Secp256k1PublicParent({ publicKey: privateExternal.publicKey!, chainCode: new Uint8Array(31) })).toThrow(RangeError);
    const offCurve = new Uint8Array(33);
    offCurve[0] = 0x02;
    offCurve[32] = 5; // x = 5: x³ + 7 = 132 is not a square mod p
    expect(() => new Secp256k1PublicParent({ publicKey: offCurve, chainCode: privateExternal.chainCode! })).toThrow();
  });
});

describe('assertOnCurve (the guard on every derived child)', () => {
  it('passes the generator and refuses a point one off it', () => {
    const { Gx, Gy, p } = secp256k1.Point.CURVE();
    expect(() => assertOnCurve({ x: Gx, y: Gy })).not.toThrow();
    expect(() => assertOnCurve({ x: Gx, y: p - Gy })).not.toThrow(); // -G
    expect(() => assertOnCurve({ x: Gx, y: Gy + 1n })).toThrow('not on the curve');
    expect(() => assertOnCurve({ x: Gx + 1n, y: Gy })).toThrow('not on the curve');
  });
});
