import { HDKey as ScureHDKey } from '@scure/bip32';
import { bytesToHex, getAddress } from 'viem';
import { HDKey, mnemonicToAccount } from 'viem/accounts';
import { keccakAccountId } from '../keys/bip32';
import { mnemonicToSeed } from '../keys/bip39';
import { KeyMaterialError, UnsupportedOperationError } from '../errors';
import { EvmAdapter } from './adapter';
import { EVM_DEPOSIT_ACCOUNT_PATH, EvmCodec } from './codec';

const JUNK = 'test test test test test test test test test test test junk';
const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';

describe('EvmCodec', () => {
  const codec = new EvmCodec({ mnemonic: JUNK });

  it("derives the well-known BIP-44 addresses (m/44'/60'/0'/0/i)", () => {
    expect(codec.deriveDepositAddress(0)).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
    expect(codec.deriveDepositAddress(1)).toBe('0x70997970C51812dc3A010C7d01b50e0d17dc79C8');
    expect(new EvmCodec({ mnemonic: ABANDON }).deriveDepositAddress(0)).toBe('0x9858EfFD232B4033E47d90003D41EC34EcaEda94');
  });

  it('matches viem mnemonicToAccount for further indexes and is deterministic', () => {
    for (const i of [2, 7, 1000]) {
      expect(codec.deriveDepositAddress(i)).toBe(mnemonicToAccount(JUNK, { addressIndex: i }).address);
      expect(new EvmCodec({ mnemonic: JUNK }).deriveDepositAddress(i)).toBe(codec.deriveDepositAddress(i));
    }
  });

  it('derives the same addresses watch-only from the account xpub', () => {
    const xpub = HDKey.fromMasterSeed(mnemonicToSeed(JUNK)).derive(EVM_DEPOSIT_ACCOUNT_PATH).publicExtendedKey;
    const watchOnly = new EvmCodec({ xpub });
    for (const i of [0, 1, 42]) expect(watchOnly.deriveDepositAddress(i)).toBe(codec.deriveDepositAddress(i));
    expect(() => watchOnly.hotWallet()).toThrow(KeyMaterialError);
    expect(() => new EvmCodec({ xpub: 'xpub-garbage' }).deriveDepositAddress(0)).toThrow(KeyMaterialError);
  });

  it('refuses missing or mistyped mnemonics and bad indexes', () => {
    expect(() => new EvmCodec({}).deriveDepositAddress(0)).toThrow(KeyMaterialError);
    expect(() => new EvmCodec({ mnemonic: JUNK.replace('junk', 'test') }).deriveDepositAddress(0)).toThrow(/checksum/);
    expect(() => new EvmCodec({ mnemonic: 'test test test' }).deriveDepositAddress(0)).toThrow(/words/);
    expect(() => codec.deriveDepositAddress(-1)).toThrow(RangeError);
    expect(() => codec.deriveDepositAddress(1.5)).toThrow(RangeError);
    expect(() => codec.deriveDepositAddress(2 ** 31)).toThrow(RangeError);
  });

  it("hot wallet is m/44'/60'/1'/0/0 with its private key", () => {
    const hot = codec.hotWallet();
    const account = mnemonicToAccount(JUNK, { accountIndex: 1 });
    expect(hot.address).toBe(account.address);
    expect(hot.privateKeyHex).toMatch(/^[0-9a-f]{64}$/);
    expect(Buffer.from(account.getHdKey().privateKey!).toString('hex')).toBe(hot.privateKeyHex);
    expect(hot.address).not.toBe(codec.deriveDepositAddress(0));
  });

  it('validates EIP-55 checksums', () => {
    expect(codec.isValidAddress('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(true);
    expect(codec.isValidAddress('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')).toBe(true); // no checksum
    expect(codec.isValidAddress('0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266')).toBe(true); // no checksum
    expect(codec.isValidAddress('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92267')).toBe(false); // wrong checksum
    expect(codec.isValidAddress('0xF39fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(false); // one case flipped
    expect(codec.isValidAddress('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb9226')).toBe(false);
    expect(codec.isValidAddress('f39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(false);
    expect(codec.isValidAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(false);
    expect(codec.isValidAddress('')).toBe(false);
  });

  it('normalizes to lowercase and refuses garbage', () => {
    expect(codec.normalizeAddress('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266');
    expect(() => codec.normalizeAddress('0x123')).toThrow(expect.objectContaining({ code: 'invalid_address' }));
  });

  it('builds EIP-681 links with chain id and exact base units', () => {
    const link = codec.paymentLink({
      address: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
      amount: '10.5',
      memo: null,
      tokenContract: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F',
      tokenDecimals: 6,
      chainId: 137,
    });
    expect(link).toBe('ethereum:0xc2132D05D31c914a87C6611C10748AEb04B58e8F@137/transfer?address=0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266&uint256=10500000');
    const bep = codec.paymentLink({
      address: codec.deriveDepositAddress(0),
      amount: '1234.123456789012345678',
      memo: null,
      tokenContract: '0x55d398326f99059fF775485246999027B3197955',
      tokenDecimals: 18,
      chainId: 56,
    });
    expect(bep).toContain('@56/transfer?');
    expect(bep).toContain('&uint256=1234123456789012345678');
    expect(() =>
      codec.paymentLink({ address: codec.deriveDepositAddress(0), amount: '1.0000001', memo: null, tokenContract: '0xc2132D05D31c914a87C6611C10748AEb04B58e8F', tokenDecimals: 6, chainId: 137 }),
    ).toThrow(expect.objectContaining({ code: 'amount_precision' }));
  });

  it('uses a derived address in the link as it is (EIP-55 already), and checksums one without checksum information', () => {
    const base = { amount: '10.5', memo: null, tokenContract: '0xc2132d05d31c914a87c6611c10748aeb04b58e8f', tokenDecimals: 6, chainId: 137 } as const;
    for (let i = 0; i < 5; i++) {
      const derived = codec.deriveDepositAddress(i);
      expect(derived).not.toBe(derived.toLowerCase()); // mixed case: EIP-55
      const link = codec.paymentLink({ ...base, address: derived, derived: true });
      expect(link).toBe(codec.paymentLink({ ...base, address: derived.toLowerCase() }));
      expect(link).toBe(`ethereum:0xc2132D05D31c914a87C6611C10748AEb04B58e8F@137/transfer?address=${derived}&uint256=10500000`);
      // A pool row holding the lower-case form still gets the checksummed one.
      expect(codec.paymentLink({ ...base, address: derived.toLowerCase(), derived: true })).toBe(link);
    }
    expect(() => codec.paymentLink({ ...base, address: '0x123', derived: true })).toThrow(expect.objectContaining({ code: 'invalid_address' }));
  });

  it('has no shared deposit address; sample addresses are valid', () => {
    expect(() => codec.sharedDepositAddress()).toThrow(UnsupportedOperationError);
    expect(codec.isValidAddress(codec.sampleAddress('buyer'))).toBe(true);
    expect(codec.sampleAddress('buyer')).toBe(codec.sampleAddress('buyer'));
  });
});

describe('EvmCodec range derivation', () => {
  const account = ScureHDKey.fromMasterSeed(mnemonicToSeed(JUNK)).derive(EVM_DEPOSIT_ACCOUNT_PATH);
  /** The derivation before ranges: @scure/bip32 deriveChild per index, keccak of the OpenSSL-decompressed key, EIP-55. */
  const reference = (node: ScureHDKey, index: number): string => getAddress(bytesToHex(keccakAccountId(node.deriveChild(0).deriveChild(index).publicKey!)));
  const LARGE = [1000, 65_536, 2 ** 31 - 2, 2 ** 31 - 1];

  it.each([
    ['mnemonic', () => new EvmCodec({ mnemonic: JUNK }), account],
    ['account xpub (watch-only)', () => new EvmCodec({ xpub: account.publicExtendedKey }), ScureHDKey.fromExtendedKey(account.publicExtendedKey)],
  ])('is byte-identical to the per-index derivation for 0..300 and large indexes (%s)', (_name, make, node) => {
    const codec = make();
    const external = node.deriveChild(0);
    const range = codec.deriveDepositAddresses(0, 301);
    expect(range).toEqual(Array.from({ length: 301 }, (_, i) => getAddress(bytesToHex(keccakAccountId(external.deriveChild(i).publicKey!)))));
    expect(range.slice(40, 72)).toEqual(codec.deriveDepositAddresses(40, 32));
    for (const i of [0, 1, 299, ...LARGE]) expect(codec.deriveDepositAddress(i)).toBe(reference(node, i));
    expect(codec.deriveDepositAddresses(2 ** 31 - 2, 2)).toEqual([reference(node, 2 ** 31 - 2), reference(node, 2 ** 31 - 1)]);
  });

  it("the live adapter exposes the codec's range derivation (the pool refill uses it)", () => {
    const codec = new EvmCodec({ mnemonic: JUNK });
    const adapter = new EvmAdapter({ network: 'POLYGON', rpcUrl: 'http://127.0.0.1:9', codec, confirmations: 1 });
    expect(adapter.deriveDepositAddresses?.(5, 3)).toEqual([5, 6, 7].map((i) => codec.deriveDepositAddress(i)));
  });

  it('normalizes its own derivations as normalizeAddress does, without the checksum check; the adapters expose it', () => {
    const codec = new EvmCodec({ mnemonic: JUNK });
    const derived = codec.deriveDepositAddresses(0, 64);
    expect(derived.map((a) => codec.normalizeDerivedAddress(a))).toEqual(derived.map((a) => codec.normalizeAddress(a)));
    expect(() => codec.normalizeDerivedAddress('0x123')).toThrow(expect.objectContaining({ code: 'invalid_address' }));
    const adapter = new EvmAdapter({ network: 'POLYGON', rpcUrl: 'http://127.0.0.1:9', codec, confirmations: 1 });
    expect(adapter.normalizeDerivedAddress?.(derived[3]!)).toBe(derived[3]!.toLowerCase());
  });

  it('refuses ranges outside [0, 2^31); an empty range is empty', () => {
    const codec = new EvmCodec({ mnemonic: JUNK });
    expect(codec.deriveDepositAddresses(10, 0)).toEqual([]);
    expect(() => codec.deriveDepositAddresses(-1, 2)).toThrow(RangeError);
    expect(() => codec.deriveDepositAddresses(0, -1)).toThrow(RangeError);
    expect(() => codec.deriveDepositAddresses(2 ** 31 - 1, 2)).toThrow(RangeError);
    expect(() => new EvmCodec({}).deriveDepositAddresses(0, 1)).toThrow(KeyMaterialError);
  });
});
