import { startStack, createMerchant, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice, payAndConfirm, balance } from './helpers';

/**
 * A merchant's own platform fee (2.5 %, not the 1 % default) end to end: created through the gateway,
 * paid exactly on devnet, credited to the ledger. Every expected string is worked out by hand from
 * DESIGN.md "Money" (TRC20: 6 decimals, buyer_network_fee 1; BEP20: 18 decimals, fee 0):
 *   buyer pays:    pay_amount = ceil(amount + amount × 2.5 % + network_fee), platform_fee = pay_amount − amount − network_fee
 *   merchant pays: pay_amount = ceil(amount), platform_fee = amount × 2.5 % + (pay_amount − amount),
 *                  merchant_net = pay_amount − platform_fee − network_fee
 *   settled exactly: credit = pay_amount − platform_fee − network_fee = merchant_net.
 */
describe('per-merchant platform fee of 2.5 % (real gateway, gRPC and PostgreSQL)', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack, { name: 'Fee 2.5 shop', platform_fee_percent: '2.5' });
  });
  afterAll(async () => {
    await stack?.stop();
  });

  // [amount, network, fee_payer, expected fields, balance.available after paying this one exactly (cumulative)]
  const cases: [string, string, 'buyer' | 'merchant', { pay_amount: string; platform_fee: string; network_fee: string; merchant_net: string }, string][] = [
    // 10.12345678 × 2.5 % = 0.2530864195; 10.12345678 + 0.2530864195 + 1 = 11.3765431995 -> ceil 6 = 11.376544;
    // platform_fee = 11.376544 − 10.12345678 − 1 = 0.25308722. Credit 10.12345678.
    ['10.12345678', 'TRC20', 'buyer', { pay_amount: '11.376544', platform_fee: '0.25308722', network_fee: '1', merchant_net: '10.12345678' }, '10.12345678'],
    // 40.12345678 × 2.5 % = 1.0030864195; pay_amount 40.12345678 (fits 18 decimals);
    // merchant_net = 40.12345678 − 1.0030864195 = 39.1203703605. Balance 10.12345678 + 39.1203703605.
    ['40.12345678', 'BEP20', 'merchant', { pay_amount: '40.12345678', platform_fee: '1.0030864195', network_fee: '0', merchant_net: '39.1203703605' }, '49.2438271405'],
    // pay_amount = ceil 6 (10.12345678) = 10.123457; platform_fee = 0.2530864195 + 0.00000022 = 0.2530866395;
    // merchant_net = 10.123457 − 0.2530866395 − 1 = 8.8703703605. Balance 49.2438271405 + 8.8703703605.
    ['10.12345678', 'TRC20', 'merchant', { pay_amount: '10.123457', platform_fee: '0.2530866395', network_fee: '1', merchant_net: '8.8703703605' }, '58.114197501'],
    // 40.12345678 + 1.0030864195 + 0 = 41.1265431995 (fits 18 decimals). Balance 58.114197501 + 40.12345678.
    ['40.12345678', 'BEP20', 'buyer', { pay_amount: '41.1265431995', platform_fee: '1.0030864195', network_fee: '0', merchant_net: '40.12345678' }, '98.237654281'],
  ];

  it('starts with an empty balance', async () => {
    expect(await balance(stack, m)).toEqual({ available: '0', held: '0', currency: 'USDT' });
  });

  it.each(cases)('amount %s on %s, %s pays: exact fees; paid exactly, the ledger credits merchant_net', async (amount, network, feePayer, expected, availableAfter) => {
    const inv = await createInvoice(stack, m, { amount, network, fee_payer: feePayer });
    expect({ pay_amount: inv.pay_amount, platform_fee: inv.platform_fee, network_fee: inv.network_fee, merchant_net: inv.merchant_net }).toEqual(expected);
    const paid = await payAndConfirm(stack, m, inv, expected.pay_amount, 'paid');
    expect(paid).toMatchObject({ received_amount: expected.pay_amount, ...expected });
    expect(await balance(stack, m)).toEqual({ available: availableAfter, held: '0', currency: 'USDT' });
  });
});
