import { Keypair } from '@solana/web3.js';
import { KeyMaterialError, UnsupportedOperationError } from '../errors';
import { SolanaCodec } from './codec';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p';

describe('SolanaCodec', () => {
  const codec = new SolanaCodec({ mnemonic: ABANDON });

  it("derives Phantom's m/44'/501'/i'/0' addresses", () => {
    expect(codec.deriveDepositAddress(0)).toBe('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk');
    expect(new SolanaCodec({ mnemonic: ABANDON }).deriveDepositAddress(3)).toBe(codec.deriveDepositAddress(3));
    expect(codec.deriveDepositAddress(1)).not.toBe(codec.deriveDepositAddress(0));
  });

  it('hot wallet is a separate key that no deposit index reaches', () => {
    const hot = codec.hotWallet();
    expect(Keypair.fromSeed(Buffer.from(hot.privateKeyHex, 'hex')).publicKey.toBase58()).toBe(hot.address);
    for (const i of [0, 1, 1000]) expect(codec.deriveDepositAddress(i)).not.toBe(hot.address);
  });

  it('needs the mnemonic (ed25519 has no xpub)', () => {
    expect(() => new SolanaCodec({ xpub: 'xpub...' }).deriveDepositAddress(0)).toThrow(KeyMaterialError);
  });

  it('accepts canonical base58 32-byte keys only', () => {
    expect(codec.isValidAddress(MINT)).toBe(true);
    expect(codec.isValidAddress('11111111111111111111111111111111')).toBe(true); // system program
    expect(codec.isValidAddress('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')).toBe(true);
    expect(codec.isValidAddress(MINT.slice(0, -1))).toBe(false);
    expect(codec.isValidAddress(`${MINT}zz`)).toBe(false); // 45 characters
    expect(codec.isValidAddress(`0OIl${MINT.slice(4)}`)).toBe(false); // not base58
    expect(codec.isValidAddress('z'.repeat(44))).toBe(false); // decodes to more than 32 bytes
    expect(codec.isValidAddress('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(false);
    expect(codec.isValidAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t')).toBe(false);
    expect(codec.normalizeAddress(MINT)).toBe(MINT);
    expect(() => codec.normalizeAddress('abc')).toThrow(expect.objectContaining({ code: 'invalid_address' }));
  });

  it('builds Solana Pay links with decimal amount and spl-token', () => {
    const to = codec.deriveDepositAddress(0);
    expect(codec.paymentLink({ address: to, amount: '0.50', memo: null, tokenContract: MINT, tokenDecimals: 6 })).toBe(`solana:${to}?amount=0.5&spl-token=${MINT}`);
    expect(codec.paymentLink({ address: to, amount: '3', memo: 'order 7', tokenContract: MINT, tokenDecimals: 6 })).toBe(`solana:${to}?amount=3&spl-token=${MINT}&memo=order%207`);
  });

  it('has no shared address; samples are valid', () => {
    expect(() => codec.sharedDepositAddress()).toThrow(UnsupportedOperationError);
    expect(codec.isValidAddress(codec.sampleAddress('x'))).toBe(true);
  });
});
