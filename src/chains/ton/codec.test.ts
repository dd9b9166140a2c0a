import { Address } from '@ton/core';
import { KeyMaterialError, UnsupportedOperationError } from '../errors';
import { TonCodec } from './codec';

const ABANDON = 'abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon abandon about';
const JETTON = 'EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDs';

describe('TonCodec', () => {
  const codec = new TonCodec({ mnemonic: ABANDON });

  it("shared wallet: v4r2 of SLIP-0010 m/44'/607'/0', bounceable friendly form, deterministic", () => {
    const shared = codec.sharedDepositAddress();
    // Pinned: a change here would move every merchant's deposits to another wallet.
    expect(shared).toBe('EQAzWZa6nM5mJev91wGc7VCSfBoIsYRqKJpV78N8Add9-U9d');
    expect(new TonCodec({ mnemonic: ABANDON }).sharedDepositAddress()).toBe(shared);
    expect(Address.parseFriendly(shared).isBounceable).toBe(true);
    expect(Address.parseFriendly(shared).isTestOnly).toBe(false);
    expect(codec.hotWallet().address).not.toBe(shared);
    expect(codec.hotWallet().privateKeyHex).toMatch(/^[0-9a-f]{64}$/);
  });

  it('master_memo: no derived addresses; needs a mnemonic', () => {
    expect(() => codec.deriveDepositAddress(0)).toThrow(UnsupportedOperationError);
    expect(() => new TonCodec({}).sharedDepositAddress()).toThrow(KeyMaterialError);
  });

  it('validates raw and friendly forms, refuses bad checksums and other chains', () => {
    const raw = Address.parse(JETTON).toRawString();
    expect(codec.isValidAddress(JETTON)).toBe(true);
    expect(codec.isValidAddress(raw)).toBe(true);
    expect(codec.isValidAddress(Address.parse(JETTON).toString({ bounceable: false }))).toBe(true);
    expect(codec.isValidAddress(Address.parse(JETTON).toString({ urlSafe: false }))).toBe(true);
    expect(codec.isValidAddress('EQCxE6mUtQJKFnGfaROTKOt1lZbDiiX1kCixRv7Nw2Id_sDt')).toBe(false);
    expect(codec.isValidAddress('0:abc')).toBe(false);
    expect(codec.isValidAddress('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')).toBe(false);
    expect(codec.isValidAddress('HAgk14JpMQLgt6rVgv7cBQFJWFto5Dqxi472uT3DKpqk')).toBe(false);
  });

  it('normalizes every form to the raw string', () => {
    const raw = '0:b113a994b5024a16719f69139328eb759596c38a25f59028b146fecdc3621dfe';
    expect(codec.normalizeAddress(JETTON)).toBe(raw);
    expect(codec.normalizeAddress(Address.parse(JETTON).toString({ bounceable: false }))).toBe(raw);
    expect(codec.normalizeAddress(raw)).toBe(raw);
    expect(() => codec.normalizeAddress('nope')).toThrow(expect.objectContaining({ code: 'invalid_address' }));
  });

  it('builds ton://transfer links with jetton, base units and the url-encoded memo', () => {
    const to = codec.sharedDepositAddress();
    expect(codec.paymentLink({ address: to, amount: '12.5', memo: 'inv 42/ü&x', tokenContract: JETTON, tokenDecimals: 6 })).toBe(
      `ton://transfer/${to}?jetton=${JETTON}&amount=12500000&text=inv%2042%2F%C3%BC%26x`,
    );
    expect(codec.paymentLink({ address: to, amount: '1', memo: null, tokenContract: JETTON, tokenDecimals: 6 })).not.toContain('text=');
  });

  it('samples are valid addresses', () => {
    expect(codec.isValidAddress(codec.sampleAddress('x'))).toBe(true);
  });
});
