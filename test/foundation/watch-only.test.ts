import { HDKey } from 'viem/accounts';
import { mnemonicToSeedSync } from '@scure/bip39';
import { startStack, createMerchant, signed, type Stack } from '../support/stack';

const JUNK = 'test test test test test test test test test test test junk';

describe('watch-only deposit addresses from an account xpub', () => {
  let stack: Stack;
  afterAll(async () => {
    await stack?.stop();
  });

  it('EVM_DEPOSIT_XPUB derives the pool (BIP-44 coin 60) without the deposit private keys', async () => {
    const xpub = HDKey.fromMasterSeed(mnemonicToSeedSync(JUNK)).derive("m/44'/60'/0'").publicExtendedKey;
    stack = await startStack({ env: { EVM_DEPOSIT_XPUB: xpub } });
    const m = await createMerchant(stack);
    const res = await signed(stack, m, 'POST', '/v1/invoices', { amount: '5', network: 'BEP20' });
    expect(res.status).toBe(201);
    // Index 0 of that account, as every wallet derives it.
    expect(res.body.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266');
  });
});
