import { HDKey } from '@scure/bip32';
import { keccak_256 } from '@noble/hashes/sha3';
import { AddonPublicNode } from './addon-bip32';
import { loadSecp256k1Addon, type Secp256k1Addon } from './secp256k1-addon';

/**
 * The published BIP-32 test vectors 1 and 2 (https://github.com/bitcoin/bips/blob/master/bip-0032.mediawiki):
 * the first implementation (@scure/bip32) for every path, the second (the secp256k1 add-on's
 * CKDpub) for every non-hardened step, on libsecp256k1 and on the package's JavaScript fallback.
 */
const VECTORS: { seed: string; chain: [path: string, xpub: string, xprv: string][] }[] = [
  {
    seed: '000102030405060708090a0b0c0d0e0f',
    chain: [
      [
        'm',
        'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8',
        'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi',
      ],
      [
        "m/0'",
        'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw',
        'xprv9uHRZZhk6KAJC1avXpDAp4MDc3sQKNxDiPvvkX8Br5ngLNv1TxvUxt4cV1rGL5hj6KCesnDYUhd7oWgT11eZG7XnxHrnYeSvkzY7d2bhkJ7',
      ],
      [
        "m/0'/1",
        'xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ',
        'xprv9wTYmMFdV23N2TdNG573QoEsfRrWKQgWeibmLntzniatZvR9BmLnvSxqu53Kw1UmYPxLgboyZQaXwTCg8MSY3H2EU4pWcQDnRnrVA1xe8fs',
      ],
      [
        "m/0'/1/2'",
        'xpub6D4BDPcP2GT577Vvch3R8wDkScZWzQzMMUm3PWbmWvVJrZwQY4VUNgqFJPMM3No2dFDFGTsxxpG5uJh7n7epu4trkrX7x7DogT5Uv6fcLW5',
        'xprv9z4pot5VBttmtdRTWfWQmoH1taj2axGVzFqSb8C9xaxKymcFzXBDptWmT7FwuEzG3ryjH4ktypQSAewRiNMjANTtpgP4mLTj34bhnZX7UiM',
      ],
      [
        "m/0'/1/2'/2",
        'xpub6FHa3pjLCk84BayeJxFW2SP4XRrFd1JYnxeLeU8EqN3vDfZmbqBqaGJAyiLjTAwm6ZLRQUMv1ZACTj37sR62cfN7fe5JnJ7dh8zL4fiyLHV',
        'xprvA2JDeKCSNNZky6uBCviVfJSKyQ1mDYahRjijr5idH2WwLsEd4Hsb2Tyh8RfQMuPh7f7RtyzTtdrbdqqsunu5Mm3wDvUAKRHSC34sJ7in334',
      ],
      [
        "m/0'/1/2'/2/1000000000",
        'xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy',
        'xprvA41z7zogVVwxVSgdKUHDy1SKmdb533PjDz7J6N6mV6uS3ze1ai8FHa8kmHScGpWmj4WggLyQjgPie1rFSruoUihUZREPSL39UNdE3BBDu76',
      ],
    ],
  },
  {
    seed: 'fffcf9f6f3f0edeae7e4e1dedbd8d5d2cfccc9c6c3c0bdbab7b4b1aeaba8a5a29f9c999693908d8a8784817e7b7875726f6c696663605d5a5754514e4b484542',
    chain: [
      [
        'm',
        'xpub661MyMwAqRbcFW31YEwpkMuc5THy2PSt5bDMsktWQcFF8syAmRUapSCGu8ED9W6oDMSgv6Zz8idoc4a6mr8BDzTJY47LJhkJ8UB7WEGuduB',
        'xprv9s21ZrQH143K31xYSDQpPDxsXRTUcvj2iNHm5NUtrGiGG5e2DtALGdso3pGz6ssrdK4PFmM8NSpSBHNqPqm55Qn3LqFtT2emdEXVYsCzC2U',
      ],
      [
        'm/0',
        'xpub69H7F5d8KSRgmmdJg2KhpAK8SR3DjMwAdkxj3ZuxV27CprR9LgpeyGmXUbC6wb7ERfvrnKZjXoUmmDznezpbZb7ap6r1D3tgFxHmwMkQTPH',
        'xprv9vHkqa6EV4sPZHYqZznhT2NPtPCjKuDKGY38FBWLvgaDx45zo9WQRUT3dKYnjwih2yJD9mkrocEZXo1ex8G81dwSM1fwqWpWkeS3v86pgKt',
      ],
      [
        "m/0/2147483647'",
        'xpub6ASAVgeehLbnwdqV6UKMHVzgqAG8Gr6riv3Fxxpj8ksbH9ebxaEyBLZ85ySDhKiLDBrQSARLq1uNRts8RuJiHjaDMBU4Zn9h8LZNnBC5y4a',
        'xprv9wSp6B7kry3Vj9m1zSnLvN3xH8RdsPP1Mh7fAaR7aRLcQMKTR2vidYEeEg2mUCTAwCd6vnxVrcjfy2kRgVsFawNzmjuHc2YmYRmagcEPdU9',
      ],
      [
        "m/0/2147483647'/1",
        'xpub6DF8uhdarytz3FWdA8TvFSvvAh8dP3283MY7p2V4SeE2wyWmG5mg5EwVvmdMVCQcoNJxGoWaU9DCWh89LojfZ537wTfunKau47EL2dhHKon',
        'xprv9zFnWC6h2cLgpmSA46vutJzBcfJ8yaJGg8cX1e5StJh45BBciYTRXSd25UEPVuesF9yog62tGAQtHjXajPPdbRCHuWS6T8XA2ECKADdw4Ef',
      ],
      [
        "m/0/2147483647'/1/2147483646'",
        'xpub6ERApfZwUNrhLCkDtcHTcxd75RbzS1ed54G1LkBUHQVHQKqhMkhgbmJbZRkrgZw4koxb5JaHWkY4ALHY2grBGRjaDMzQLcgJvLJuZZvRcEL',
        'xprvA1RpRA33e1JQ7ifknakTFpgNXPmW2YvmhqLQYMmrj4xJXXWYpDPS3xz7iAxn8L39njGVyuoseXzU6rcxFLJ8HFsTjSyQbLYnMpCqE2VbFWc',
      ],
      [
        "m/0/2147483647'/1/2147483646'/2",
        'xpub6FnCn6nSzZAw5Tw7cgR9bi15UV96gLZhjDstkXXxvCLsUXBGXPdSnLFbdpq8p9HmGsApME5hQTZ3emM2rnY5agb9rXpVGyy3bdW6EEgAtqt',
        'xprvA2nrNbFZABcdryreWet9Ea4LvTJcGsqrMzxHx98MMrotbir7yrKCEXw7nadnHM8Dq38EGfSh6dqA9QWTyefMLEcBYJUuekgW4BYPJcr9E7j',
      ],
    ],
  },
];

/** The add-on as it loads here (libsecp256k1), and forced onto the packages' JavaScript (elliptic, keccak/js). */
const NATIVE = loadSecp256k1Addon();
const JAVASCRIPT = loadSecp256k1Addon((id) => {
  if (id.endsWith('/bindings')) throw new Error('No native build was found for this platform');
  return require(id) as unknown;
});
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('BIP-32 test vectors', () => {
  describe.each(VECTORS.map((v, i) => [i + 1, v] as const))('vector %i', (_n, { seed, chain }) => {
    const master = HDKey.fromMasterSeed(Buffer.from(seed, 'hex'));

    it.each(chain)('@scure/bip32 derives %s', (path, xpub, xprv) => {
      const node = master.derive(path);
      expect(node.publicExtendedKey).toBe(xpub);
      expect(node.privateExtendedKey).toBe(xprv);
    });

    // Each non-hardened step of the chain, from the published parent to the published child.
    const steps = chain.slice(1).flatMap(([path, xpub], k) => {
      const last = path.split('/').pop()!;
      return last.endsWith("'") ? [] : [[path, chain[k]![1], Number(last), xpub] as const];
    });
    it.each(steps.flatMap((step) => [[...step, 'libsecp256k1', NATIVE] as const, [...step, 'javascript', JAVASCRIPT] as const]))(
      'the add-on CKDpub derives %s from its published parent (%s index %i, on %s)',
      (_path, parentXpub, index, childXpub, _engine, addon: Secp256k1Addon) => {
        const parent = HDKey.fromExtendedKey(parentXpub);
        const child = HDKey.fromExtendedKey(childXpub);
        const derived = new AddonPublicNode(parent.publicKey!, parent.chainCode!, addon).child(index);
        expect(hex(derived.publicKey)).toBe(hex(child.publicKey!));
        expect(hex(derived.chainCode)).toBe(hex(child.chainCode!));
        // The uncompressed form of the same child, as the addresses hash it.
        const [uncompressed] = new AddonPublicNode(parent.publicKey!, parent.chainCode!, addon).childKeys(index, 1);
        expect(uncompressed!.length).toBe(65);
        expect(hex(uncompressed!.subarray(1, 33))).toBe(hex(child.publicKey!.subarray(1)));
      },
    );
  });

  it('the add-on refuses hardened or out-of-range child numbers (a hardened index would be another key)', () => {
    const node = HDKey.fromExtendedKey(VECTORS[0]!.chain[0]![1]);
    const addon = new AddonPublicNode(node.publicKey!, node.chainCode!, NATIVE);
    expect(() => addon.child(0x80000000)).toThrow(RangeError);
    expect(() => addon.childKeys(0x7fffffff, 2)).toThrow(RangeError);
    expect(() => addon.childKeys(-1, 1)).toThrow(RangeError);
    expect(() => new AddonPublicNode(node.publicKey!.subarray(1), node.chainCode!, NATIVE)).toThrow(RangeError);
  });
});

describe('loadSecp256k1Addon', () => {
  it('loads libsecp256k1 and the native keccak on this platform (prebuilt linux-x64 add-ons)', () => {
    expect(NATIVE.engine).toBe('libsecp256k1');
  });

  it("falls back to the packages' own JavaScript when an add-on cannot load", () => {
    expect(JAVASCRIPT.engine).toBe('javascript');
    // The curve may load while keccak does not: each package falls back on its own.
    const keccakOnly = loadSecp256k1Addon((id) => {
      if (id === 'keccak/bindings') throw new Error('No native build was found');
      return require(id) as unknown;
    });
    expect(keccakOnly.engine).toBe('libsecp256k1');
    expect(hex(keccakOnly.keccak256(Buffer.from('abc')))).toBe(hex(keccak_256(Buffer.from('abc'))));
  });

  it.each([
    ['libsecp256k1', NATIVE],
    ['javascript', JAVASCRIPT],
  ] as const)('%s hashes as keccak-256 (not SHA3-256), a view only over its own bytes', (_engine, addon) => {
    for (const data of [Buffer.alloc(0), Buffer.from('abc'), Buffer.alloc(64, 7), Buffer.alloc(200, 1)]) expect(hex(addon.keccak256(data))).toBe(hex(keccak_256(data)));
    const key = new Uint8Array(65).fill(3);
    key[0] = 4;
    expect(hex(addon.keccak256(key.subarray(1)))).toBe(hex(keccak_256(key.subarray(1))));
  });
});
