import { startStack, createMerchant, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice, getInvoice } from './helpers';

describe('PUBLIC_URL is the base of checkout_url (real gateway, gRPC and PostgreSQL)', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    // A trailing slash is tolerated: the base is used without it.
    stack = await startStack({ env: { PUBLIC_URL: 'https://pay.example.com/' } });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('checkout_url is exactly https://pay.example.com/pay/<uuid> on create and get', async () => {
    const withNetwork = await createInvoice(stack, m, { amount: '5', network: 'TON' });
    const withoutNetwork = await createInvoice(stack, m, { amount: '5' });
    for (const inv of [withNetwork, withoutNetwork]) {
      expect(inv.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
      expect(inv.checkout_url).toBe(`https://pay.example.com/pay/${inv.uuid}`);
      expect((await getInvoice(stack, m, inv.uuid)).checkout_url).toBe(`https://pay.example.com/pay/${inv.uuid}`);
    }
  });
});
