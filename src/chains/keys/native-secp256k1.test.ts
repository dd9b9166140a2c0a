import { HDKey } from '@scure/bip32';
import { secp256k1 } from '@noble/curves/secp256k1';
import { keccak_256 } from '@noble/hashes/sha3';
import { getAddress } from 'viem';
import { mnemonicToSeed } from './bip39';
import { loadNativeSecp256k1, type NativeSecp256k1 } from './native-secp256k1';
import { Secp256k1PublicParent } from './secp256k1-children';
import { createAddressCodec } from '../codecs';
import { eip55Address } from '../evm/checksum';
import type { NetworkCode } from '../../domain/networks';

const JUNK = 'test test test test test test test test test test test junk';
const external = HDKey.fromMasterSeed(mnemonicToSeed(JUNK)).derive("m/44'/60'/0'/0");
const parent = { publicKey: external.publicKey!, chainCode: external.chainCode! };
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** The add-ons ship prebuilt for linux-x64 (CI): here they must load, or the derivation thread silently stays on JavaScript. */
const native = loadNativeSecp256k1();

describe('loadNativeSecp256k1', () => {
  it('loads libsecp256k1 and the native keccak on this platform', () => {
    expect(native).not.toBeNull();
  });

  it('gives null (JavaScript derivation) when an add-on cannot load', () => {
    const failing = (id: string) => {
      if (id === 'keccak/bindings') throw new Error('No native build was found');
      return require(id) as unknown;
    };
    expect(loadNativeSecp256k1(failing)).toBeNull();
  });

  it('hashes as @noble/hashes keccak_256 (not SHA3-256)', () => {
    for (const data of [Buffer.alloc(0), Buffer.from('abc'), Buffer.alloc(64, 7), Buffer.alloc(200, 1)]) expect(hex(native!.keccak256(data))).toBe(hex(keccak_256(data)));
    // A view into a larger array (a public key without its 0x04 prefix) hashes only its own bytes.
    const key = new Uint8Array(65).fill(3);
    key[0] = 4;
    expect(hex(native!.keccak256(key.subarray(1)))).toBe(hex(keccak_256(key.subarray(1))));
  });
});

describe('Secp256k1PublicParent with libsecp256k1', () => {
  it('derives byte-identical children to the JavaScript table for a range and at large indexes', () => {
    const js = new Secp256k1PublicParent(parent);
    const nat = new Secp256k1PublicParent(parent, native);
    expect(nat.children(0, 200).map(hex)).toEqual(js.children(0, 200).map(hex));
    for (const i of [65_536, 16_777_216, 2 ** 31 - 1]) expect(hex(nat.children(i, 1)[0]!)).toBe(hex(secp256k1.Point.fromHex(external.deriveChild(i).publicKey!).toBytes(false)));
  });

  it('derives in JavaScript a child libsecp256k1 refuses (its only refusal for a tweak below n: the point at infinity)', () => {
    const refusing: NativeSecp256k1 = {
      tweakAdd: () => {
        throw new Error('The tweak was out of range or the resulted public key is invalid');
      },
      keccak256: (d) => keccak_256(d),
    };
    expect(new Secp256k1PublicParent(parent, refusing).children(40, 3).map(hex)).toEqual(new Secp256k1PublicParent(parent).children(40, 3).map(hex));
  });
});

describe('eip55Address', () => {
  it('checksums as viem getAddress', () => {
    for (let i = 0; i < 300; i++) {
      const id = keccak_256(Buffer.from(`account ${i}`)).subarray(12);
      expect(eip55Address(id, keccak_256)).toBe(getAddress(`0x${hex(id)}`));
      expect(eip55Address(id, native!.keccak256)).toBe(getAddress(`0x${hex(id)}`));
    }
    expect(() => eip55Address(Buffer.alloc(19), keccak_256)).toThrow(RangeError);
  });
});

describe.each<NetworkCode>(['POLYGON', 'TRC20'])('the %s codec with libsecp256k1', (network) => {
  it('derives the same deposit addresses as without it', () => {
    const keys = { mnemonic: JUNK };
    const js = createAddressCodec(network, keys);
    const nat = createAddressCodec(network, keys, native);
    expect(nat.deriveDepositAddresses!(0, 120)).toEqual(js.deriveDepositAddresses!(0, 120));
    expect(nat.deriveDepositAddress(1_000_000)).toBe(js.deriveDepositAddress(1_000_000));
  });
});
