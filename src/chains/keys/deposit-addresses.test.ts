import { HDKey } from '@scure/bip32';
import { Keypair, PublicKey } from '@solana/web3.js';
import { createAddressCodec } from '../codecs';
import { EVM_DEPOSIT_ACCOUNT_PATH } from '../evm/codec';
import { eip55Address } from '../evm/checksum';
import { TRON_DEPOSIT_ACCOUNT_PATH } from '../tron/codec';
import { solanaDepositPath } from '../solana/codec';
import { getAddress } from 'viem';
import { keccak_256 } from '@noble/hashes/sha3';
import { mnemonicToSeed } from './bip39';
import { deriveEd25519, deriveEd25519Check } from './slip10';
import { loadSecp256k1Addon, type Secp256k1Addon } from './secp256k1-addon';

/**
 * Published BIP-44 addresses of the standard test mnemonic, derived by both implementations of
 * every pool family (the first, and the check on libsecp256k1 and on its JavaScript fallback).
 * Sources: MetaMask / Ian Coleman's BIP39 tool / the TRON Ledger app's test case, repeated in many
 * wallets' test suites.
 */
const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const EVM = [
  '0x9858EfFD232B4033E47d90003D41EC34EcaEda94',
  '0x6Fac4D18c912343BF86fa7049364Dd4E424Ab9C0',
  '0xb6716976A3ebe8D39aCEB04372f22Ff8e6802D7A',
  '0xF3f50213C1d2e255e4B2bAD430F8A38EEF8D718E',
  '0x51cA8ff9f1C0a99f88E86B8112eA3237F55374cA',
];
const TRON = ['TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', 'TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK', 'TYJPRrdB5APNeRs4R7fYZSwW3TcrTKw2gx'];
const SOLANA_0 = 'HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk';
/** The published xpubs of the same mnemonic at m/44'/60'/0' (the account) and m/44'/60'/0'/0 (its external chain). */
const EVM_ACCOUNT_XPUB = 'xpub6DCoCpSuQZB2jawqnGMEPS63ePKWkwWPH4TU45Q7LPXWuNd8TMtVxRrgjtEshuqpK3mdhaWHPFsBngh5GFZaM6si3yZdUsT8ddYM3PwnATt';
const EVM_EXTERNAL_XPUB = 'xpub6EF8jXqFeFEW5bwMU7RpQtHkzE4KJxcqJtvkCjJumzW8CPpacXkb92ek4WzLQXjL93HycJwTPUAcuNxCqFPKKU5m5Z2Vq4nCyh5CyPeBFFr';

const ENGINES: readonly (readonly [string, Secp256k1Addon])[] = [
  ['libsecp256k1', loadSecp256k1Addon()],
  [
    'javascript',
    loadSecp256k1Addon((id) => {
      if (id.endsWith('/bindings')) throw new Error('No native build was found for this platform');
      return require(id) as unknown;
    }),
  ],
];
const seed = mnemonicToSeed(ABANDON);

describe('published BIP-44 deposit addresses of the standard test mnemonic', () => {
  it('the account and external-chain nodes are the published xpubs', () => {
    const root = HDKey.fromMasterSeed(seed);
    expect(root.derive(EVM_DEPOSIT_ACCOUNT_PATH).publicExtendedKey).toBe(EVM_ACCOUNT_XPUB);
    expect(root.derive(`${EVM_DEPOSIT_ACCOUNT_PATH}/0`).publicExtendedKey).toBe(EVM_EXTERNAL_XPUB);
  });

  describe.each(ENGINES)('the check on %s', (_engine, addon) => {
    it("EVM m/44'/60'/0'/0/i: both implementations, from the mnemonic and watch-only from the account xpub", async () => {
      for (const keys of [{ mnemonic: ABANDON }, { xpub: EVM_ACCOUNT_XPUB }]) {
        const codec = createAddressCodec('POLYGON', keys, { addon });
        expect(codec.deriveDepositAddresses!(0, 5)).toEqual(EVM);
        expect(await codec.crossCheckDepositAddresses(0, 5)).toEqual(EVM);
        expect(codec.deriveDepositAddress(2)).toBe(EVM[2]);
      }
    });

    it("TRON m/44'/195'/0'/0/i: both implementations, from the mnemonic and watch-only from the account xpub", async () => {
      const tronXpub = HDKey.fromMasterSeed(seed).derive(TRON_DEPOSIT_ACCOUNT_PATH).publicExtendedKey;
      for (const keys of [{ mnemonic: ABANDON }, { tronXpub }]) {
        const codec = createAddressCodec('TRC20', keys, { addon });
        expect(codec.deriveDepositAddresses!(0, 3)).toEqual(TRON);
        expect(await codec.crossCheckDepositAddresses(0, 3)).toEqual(TRON);
      }
    });

    it('both implementations agree over a range and at large indexes (the last non-hardened one included)', async () => {
      for (const network of ['BEP20', 'TRC20'] as const) {
        const codec = createAddressCodec(network, { mnemonic: ABANDON }, { addon });
        expect(await codec.crossCheckDepositAddresses(100, 12)).toEqual(codec.deriveDepositAddresses!(100, 12));
        for (const i of [65_536, 16_777_216, 2 ** 31 - 1]) expect(await codec.crossCheckDepositAddresses(i, 1)).toEqual([codec.deriveDepositAddress(i)]);
        await expect(codec.crossCheckDepositAddresses(2 ** 31 - 1, 2)).rejects.toThrow(RangeError);
        expect(() => codec.deriveDepositAddresses!(2 ** 31 - 1, 2)).toThrow(RangeError);
      }
    });
  });

  it("SOLANA m/44'/501'/i'/0' (SLIP-0010): both implementations", async () => {
    const codec = createAddressCodec('SOLANA', { mnemonic: ABANDON });
    expect(codec.deriveDepositAddress(0)).toBe(SOLANA_0);
    expect(await codec.crossCheckDepositAddresses(0, 1)).toEqual([SOLANA_0]);
    const range = await codec.crossCheckDepositAddresses(1, 6);
    expect(range).toEqual([1, 2, 3, 4, 5, 6].map((i) => codec.deriveDepositAddress(i)));
    expect(new Set(range).size).toBe(6);
    // The codec's branch + i'/0' is the full documented path.
    for (const i of [0, 5, 2 ** 31 - 1]) expect(codec.deriveDepositAddress(i)).toBe(new PublicKey(deriveEd25519(seed, solanaDepositPath(i)).publicKey).toBase58());
  });

  it('TON has no derived deposit addresses to check', async () => {
    await expect(createAddressCodec('TON', { mnemonic: ABANDON }).crossCheckDepositAddresses(0, 1)).rejects.toThrow('crossCheckDepositAddresses is not supported on ton');
  });
});

describe('SLIP-0010 ed25519: the two implementations', () => {
  it('give the same key, chain code and public key; the public key is the ed25519 key of the seed', async () => {
    for (const path of ["m/44'/501'/0'/0'", "m/44'/501'/7'/0'", "m/44'/607'/0'", 'm']) {
      const first = deriveEd25519(seed, path);
      expect(await deriveEd25519Check(seed, path)).toEqual(first);
      expect(Keypair.fromSeed(first.key).publicKey.toBuffer()).toEqual(first.publicKey);
    }
    expect(deriveEd25519(seed, solanaDepositPath(0)).key).not.toEqual(deriveEd25519(seed, solanaDepositPath(1)).key);
  });

  it('the check refuses non-hardened segments as the first does', async () => {
    await expect(deriveEd25519Check(seed, "m/44'/0")).rejects.toThrow(RangeError);
    expect(() => deriveEd25519(seed, "m/44'/0")).toThrow(RangeError);
  });
});

describe("eip55Address (the check's EIP-55)", () => {
  it('checksums as viem getAddress, with either keccak', () => {
    for (const [, addon] of ENGINES) {
      for (let i = 0; i < 200; i++) {
        const id = keccak_256(Buffer.from(`account ${i}`)).subarray(12);
        expect(eip55Address(id, addon.keccak256)).toBe(getAddress(`0x${Buffer.from(id).toString('hex')}`));
      }
    }
    expect(() => eip55Address(Buffer.alloc(19), keccak_256)).toThrow(RangeError);
  });
});
