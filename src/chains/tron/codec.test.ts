import { randomBytes } from 'node:crypto';
import { getBase58CheckAddress, isAddressValid } from 'tronweb/utils';
import { HDKey } from '@scure/bip32';
import { TronWeb } from 'tronweb';
import { keccakAccountId } from '../keys/bip32';
import { mnemonicToSeed } from '../keys/bip39';
import { UnsupportedOperationError } from '../errors';
import { TRON_DEPOSIT_ACCOUNT_PATH, TronCodec, tronAddress, tronHex } from './codec';

const JUNK = 'test test test test test test test test test test test junk';
const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

describe('TronCodec', () => {
  const codec = new TronCodec({ mnemonic: ABANDON });

  it("derives the well-known TRON addresses (m/44'/195'/0'/0/i)", () => {
    expect(codec.deriveDepositAddress(0)).toBe('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH');
    expect(codec.deriveDepositAddress(1)).toBe('TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK');
  });

  it('agrees with TronWeb.fromMnemonic (an independent implementation)', () => {
    const junk = new TronCodec({ mnemonic: JUNK });
    for (const i of [0, 5]) {
      expect(junk.deriveDepositAddress(i)).toBe(TronWeb.fromMnemonic(JUNK, `m/44'/195'/0'/0/${i}`).address);
    }
    const hot = TronWeb.fromMnemonic(JUNK, "m/44'/195'/1'/0/0");
    expect(junk.hotWallet()).toEqual({ address: hot.address, privateKeyHex: hot.privateKey.replace(/^0x/, '').toLowerCase() });
  });

  it('derives watch-only from the TRON account xpub', () => {
    const tronXpub = HDKey.fromMasterSeed(mnemonicToSeed(ABANDON)).derive(TRON_DEPOSIT_ACCOUNT_PATH).publicExtendedKey;
    expect(new TronCodec({ tronXpub }).deriveDepositAddress(1)).toBe('TSeJkUh4Qv67VNFwY8LaAxERygNdy6NQZK');
  });

  it('validates base58check with the 0x41 prefix', () => {
    expect(codec.isValidAddress(USDT)).toBe(true);
    expect(codec.isValidAddress('TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH')).toBe(true);
    expect(codec.isValidAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6u')).toBe(false); // checksum
    expect(codec.isValidAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj60')).toBe(false); // '0' is not base58
    expect(codec.isValidAddress('1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2')).toBe(false); // bitcoin prefix
    expect(codec.isValidAddress('41a614f803b6fd780986a42c78ec9c7f77e6ded13c')).toBe(false); // hex form
    expect(codec.isValidAddress('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(false);
    expect(codec.isValidAddress('')).toBe(false);
    // The same verdicts as tronweb's own isAddressValid (which hashes in JavaScript), on valid
    // addresses and on every one-character change of them.
    const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl';
    for (const valid of [USDT, codec.sampleAddress('a'), codec.sampleAddress('b')]) {
      for (let at = 0; at < valid.length; at += 3) {
        for (const c of alphabet.slice(0, 20)) {
          const changed = valid.slice(0, at) + c + valid.slice(at + 1);
          let expected: boolean;
          try {
            expected = isAddressValid(changed);
          } catch {
            expected = false;
          }
          expect([changed, codec.isValidAddress(changed)]).toEqual([changed, expected]);
        }
      }
    }
  });

  it('normalizes base58 as is and converts the hex form', () => {
    expect(codec.normalizeAddress(USDT)).toBe(USDT);
    expect(codec.normalizeAddress('41a614f803b6fd780986a42c78ec9c7f77e6ded13c')).toBe(USDT);
    expect(tronHex(USDT)).toBe('41a614f803b6fd780986a42c78ec9c7f77e6ded13c');
    expect(() => codec.normalizeAddress('nope')).toThrow(expect.objectContaining({ code: 'invalid_address' }));
  });

  it('builds tron: links with contract and decimal amount', () => {
    const to = codec.deriveDepositAddress(0);
    expect(codec.paymentLink({ address: to, amount: '25.120000', memo: null, tokenContract: USDT, tokenDecimals: 6 })).toBe(`tron:${to}?token=${USDT}&amount=25.12`);
    expect(() => codec.paymentLink({ address: to, amount: '1.1234567', memo: null, tokenContract: USDT, tokenDecimals: 6 })).toThrow(/decimals/);
  });

  it('has no shared address; samples are valid', () => {
    expect(() => codec.sharedDepositAddress()).toThrow(UnsupportedOperationError);
    expect(codec.isValidAddress(codec.sampleAddress('x'))).toBe(true);
  });
});

describe('TronCodec range derivation', () => {
  const account = HDKey.fromMasterSeed(mnemonicToSeed(JUNK)).derive(TRON_DEPOSIT_ACCOUNT_PATH);
  /** The derivation before ranges: @scure/bip32 per index, OpenSSL-decompressed keccak id, tronweb's base58check. */
  const reference = (external: HDKey, index: number): string => getBase58CheckAddress([0x41, ...keccakAccountId(external.deriveChild(index).publicKey!)]);

  it.each([
    ['mnemonic', () => new TronCodec({ mnemonic: JUNK }), account],
    ['account xpub (watch-only)', () => new TronCodec({ tronXpub: account.publicExtendedKey }), HDKey.fromExtendedKey(account.publicExtendedKey)],
  ])('is byte-identical to the per-index derivation for 0..300 and large indexes (%s)', (_name, make, node) => {
    const codec = make();
    const external = node.deriveChild(0);
    expect(codec.deriveDepositAddresses(0, 301)).toEqual(Array.from({ length: 301 }, (_, i) => reference(external, i)));
    for (const i of [0, 1000, 65_536, 2 ** 31 - 1]) expect(codec.deriveDepositAddress(i)).toBe(reference(external, i));
    expect(codec.deriveDepositAddresses(2 ** 31 - 3, 3)).toEqual([2 ** 31 - 3, 2 ** 31 - 2, 2 ** 31 - 1].map((i) => reference(external, i)));
    expect(() => codec.deriveDepositAddresses(2 ** 31 - 1, 2)).toThrow(RangeError);
  });

  it('tronAddress (native double SHA-256) equals tronweb getBase58CheckAddress', () => {
    const ids = [Buffer.alloc(20), Buffer.alloc(20, 0xff), ...Array.from({ length: 200 }, () => randomBytes(20))];
    for (const id of ids) expect(tronAddress(id)).toBe(getBase58CheckAddress([0x41, ...id]));
    expect(tronAddress(Buffer.from('a614f803b6fd780986a42c78ec9c7f77e6ded13c', 'hex'))).toBe(USDT);
  });
});
