import { KeyMaterialError } from '../errors';
import { mnemonicToSeed } from './bip39';
import { deriveEd25519, deriveEd25519Check } from './slip10';

describe('BIP-39 seed', () => {
  it('matches the Trezor reference vectors (passphrase TREZOR)', () => {
    const abandon = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
    expect(mnemonicToSeed(abandon, 'TREZOR').toString('hex')).toBe('c55257c360c07c72029aebc1b53c05ed0362ada38ead3e3e9efa3708e53495531f09a6987599d18264c1e1c92f2cf141630c7a3c4ab7c81b2f001698e7463b04');
    expect(mnemonicToSeed('legal winner thank year wave sausage worth useful legal winner thank yellow', 'TREZOR').toString('hex')).toBe(
      '2e8905819b8723fe2c1d161860e5ee1830318dbf49a83bd451cfb8440c28bd6fa457fe1296106559a3c80937a1c1069be3a3a5bd381ee6260e8d9739fce1f607',
    );
  });

  it('tolerates extra whitespace but refuses bad words, counts and checksums', () => {
    const junk = 'test test test test test test test test test test test junk';
    expect(mnemonicToSeed(`  ${junk.replace(/ /g, '   ')}\n`).equals(mnemonicToSeed(junk))).toBe(true);
    expect(() => mnemonicToSeed(junk.replace('junk', 'junko'))).toThrow(KeyMaterialError);
    expect(() => mnemonicToSeed(junk.replace('junk', 'zoo'))).toThrow(/checksum/);
    expect(() => mnemonicToSeed('test junk')).toThrow(/words/);
  });
});

describe('SLIP-0010 ed25519', () => {
  // https://github.com/satoshilabs/slips/blob/master/slip-0010.md, test vector 1 for ed25519:
  // path, chain code, private key, public key (without the spec's 00 prefix; null: not asserted).
  const seed = Buffer.from('000102030405060708090a0b0c0d0e0f', 'hex');
  const vectors: [string, string, string, string | null][] = [
    [
      'm',
      '90046a93de5380a72b5e45010748567d5ea02bbf6522f979e05c0d8d8ca9fffb',
      '2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7',
      'a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed',
    ],
    [
      "m/0'",
      '8b59aa11380b624e81507a27fedda59fea6d0b779a778918a2fd3590e16e9c69',
      '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3',
      '8c8a13df77a28f3445213a0f432fde644acaa215fc72dcdf300d5efaa85d350c',
    ],
    [
      "m/0'/1'",
      'a320425f77d1b5c2505a6b1b27382b37368ee640e3557c315416801243552f14',
      'b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2',
      '1932a5270f335bed617d5b935c80aedb1a35bd9fc1e31acafd5372c30f5c1187',
    ],
    ["m/0'/1'/2'", '2e69929e00b5ab250f49c3fb1c12f252de4fed2c1db88387094a0f8c4c9ccd6c', '92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9', null],
    ["m/0'/1'/2'/2'", '8f6d87f93d750e0efccda017d662a1b31a266e4a6f5993b15f5c1f07f74dd5cc', '30d1dc7e5fc04c31219ab25a27ae00b50f6fd66622f6e9c913253d6511d1e662', null],
    [
      "m/0'/1'/2'/2'/1000000000'",
      '68789923a0cac2cd5a29172a475fe9e0fb14cd6adb5ad98a3fa70333e7afa230',
      '8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793',
      '3c24da049451555d51a7014a37337aa4e12d41e485abccfa46b47dfb2af54b7a',
    ],
  ];
  it.each(vectors)('%s, by both implementations', async (path, chainCode, key, publicKey) => {
    for (const node of [deriveEd25519(seed, path), await deriveEd25519Check(seed, path)]) {
      expect(node.chainCode.toString('hex')).toBe(chainCode);
      expect(node.key.toString('hex')).toBe(key);
      if (publicKey !== null) expect(node.publicKey.toString('hex')).toBe(publicKey);
    }
  });

  it('refuses non-hardened segments', async () => {
    expect(() => deriveEd25519(seed, "m/44'/0")).toThrow(RangeError);
    expect(() => deriveEd25519(seed, "44'/0'")).toThrow(RangeError);
    await expect(deriveEd25519Check(seed, "m/44'/0")).rejects.toThrow(RangeError);
  });
});
