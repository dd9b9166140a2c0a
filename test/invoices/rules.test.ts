import Decimal from 'decimal.js';
import { startStack, createMerchant, signed, rpc, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice, pay, waitForStatusOf, count } from './helpers';

describe('invoice rules: rounding, validation, network change', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  // Worked out independently (Python decimal, ROUND_CEILING to the token precision); fee 1 %.
  const table: [string, string, 'buyer' | 'merchant', { pay_amount: string; platform_fee: string; network_fee: string; merchant_net: string }][] = [
    ['10.12345678', 'TRC20', 'buyer', { pay_amount: '11.224692', platform_fee: '0.10123522', network_fee: '1', merchant_net: '10.12345678' }],
    ['10.12345678', 'TRC20', 'merchant', { pay_amount: '10.123457', platform_fee: '0.1012347878', network_fee: '1', merchant_net: '9.0222222122' }],
    ['10.12345678', 'BEP20', 'buyer', { pay_amount: '10.2246913478', platform_fee: '0.1012345678', network_fee: '0', merchant_net: '10.12345678' }],
    ['10.12345678', 'BEP20', 'merchant', { pay_amount: '10.12345678', platform_fee: '0.1012345678', network_fee: '0', merchant_net: '10.0222222122' }],
    ['0.99999999', 'POLYGON', 'buyer', { pay_amount: '1.01', platform_fee: '0.01000001', network_fee: '0', merchant_net: '0.99999999' }],
    ['0.99999999', 'POLYGON', 'merchant', { pay_amount: '1', platform_fee: '0.0100000099', network_fee: '0', merchant_net: '0.9899999901' }],
    ['123.00000001', 'BEP20', 'buyer', { pay_amount: '124.2300000101', platform_fee: '1.2300000001', network_fee: '0', merchant_net: '123.00000001' }],
    ['123.00000001', 'BEP20', 'merchant', { pay_amount: '123.00000001', platform_fee: '1.2300000001', network_fee: '0', merchant_net: '121.7700000099' }],
  ];

  it.each(table)('amount %s on %s, %s pays: exact fees, payable at the token precision', async (amount, network, feePayer, expected) => {
    const inv = await createInvoice(stack, m, { amount, network, fee_payer: feePayer });
    expect({ pay_amount: inv.pay_amount, platform_fee: inv.platform_fee, network_fee: inv.network_fee, merchant_net: inv.merchant_net }).toEqual(expected);
    const decimals = network === 'BEP20' ? 18 : 6;
    expect(new Decimal(inv.pay_amount).decimalPlaces()).toBeLessThanOrEqual(decimals);
    if (feePayer === 'buyer') {
      expect(new Decimal(inv.amount).plus(inv.platform_fee).plus(inv.network_fee).toFixed()).toBe(new Decimal(inv.pay_amount).toFixed());
      expect(inv.merchant_net).toBe(inv.amount);
    } else {
      expect(new Decimal(inv.pay_amount).minus(inv.platform_fee).minus(inv.network_fee).toFixed()).toBe(new Decimal(inv.merchant_net).toFixed());
    }
  });

  it('fields, defaults and links of a new invoice', async () => {
    const res = await signed(stack, m, 'POST', '/v1/invoices', {
      amount: '15',
      network: 'POLYGON',
      title: 'Order #1',
      order_id: 'rules-fields',
      return_url: 'https://shop.example/ok',
      cancel_url: 'https://shop.example/cancel',
      metadata: { cart: [1, 2], note: 'x' },
    });
    expect(res.status).toBe(201);
    const inv = res.body;
    expect(Object.keys(inv).slice(0, 24)).toEqual([
      'uuid',
      'status',
      'order_id',
      'title',
      'amount',
      'currency',
      'platform_fee',
      'network_fee',
      'pay_amount',
      'merchant_net',
      'fee_payer',
      'network',
      'address',
      'memo',
      'checkout_url',
      'qr_svg',
      'received_amount',
      'confirmations',
      'required_confirmations',
      'tx_hash',
      'metadata',
      'expires_at',
      'paid_at',
      'created_at',
    ]);
    expect(inv.currency).toBe('USDT');
    expect(inv.fee_payer).toBe('buyer');
    expect(inv.memo).toBeNull();
    expect(inv.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(inv.metadata).toEqual({ cart: [1, 2], note: 'x' });
    expect(inv.checkout_url).toBe(`http://127.0.0.1:8080/pay/${inv.uuid}`.replace('8080', String(new URL(inv.checkout_url).port || '8080')));
    expect(new URL(inv.checkout_url).pathname).toBe(`/pay/${inv.uuid}`);
    expect(inv.qr_svg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    expect(Date.parse(inv.expires_at) - Date.parse(inv.created_at)).toBe(60 * 60_000);
    const rows = await stack.daemon.orm.em.fork().getConnection().execute<{ payment_uri: string }[]>(`select payment_uri from invoices where uuid = ?`, [inv.uuid]);
    // EIP-681: token contract, chain id, recipient and the exact amount in base units (6 decimals).
    // On devnet the token and chain id are the devnet's (src/chains/devnet/ids.ts), never Polygon's
    // USDT on chain 137: a real wallet cannot pay a devnet invoice with real money.
    expect(rows[0]!.payment_uri).toBe(`ethereum:0x30A76416337482dBeA50a728d0c2Bb95230fA6a7@2100000137/transfer?address=${inv.address}&uint256=15150000`);
    // Repeating order_id returns the same invoice with 200.
    const again = await signed(stack, m, 'POST', '/v1/invoices', { amount: '99', order_id: 'rules-fields' });
    expect(again.status).toBe(200);
    expect(again.body.uuid).toBe(inv.uuid);
    expect(again.body.amount).toBe('15');
  });

  // The bound of 18 integer digits leaves room for the fees: even at a 100 % platform fee,
  // pay_amount stays below 2·10^18 and fits numeric(38,18). Worked out by hand (ceil to 6 / 18 decimals).
  it.each([
    ['1', 'TRC20', { pay_amount: '1010000000000000001', platform_fee: '10000000000000000.00000001', network_fee: '1', merchant_net: '999999999999999999.99999999' }],
    ['100', 'BEP20', { pay_amount: '1999999999999999999.99999998', platform_fee: '999999999999999999.99999999', network_fee: '0', merchant_net: '999999999999999999.99999999' }],
  ] as const)('the largest amount (18 integer digits) at a %s %% fee on %s is created and stored exactly', async (percent, network, expected) => {
    const big = await createMerchant(stack, { name: `Big ${percent}`, platform_fee_percent: percent });
    const inv = await createInvoice(stack, big, { amount: '999999999999999999.99999999', network });
    expect({ pay_amount: inv.pay_amount, platform_fee: inv.platform_fee, network_fee: inv.network_fee, merchant_net: inv.merchant_net }).toEqual(expected);
    const stored = await stack.daemon.orm.em.fork().getConnection().execute<{ amount: string; pay_amount: string }[]>(`select amount::text, pay_amount::text from invoices where uuid = ?`, [inv.uuid]);
    expect(new Decimal(stored[0]!.amount).toFixed()).toBe('999999999999999999.99999999');
    expect(new Decimal(stored[0]!.pay_amount).toFixed()).toBe(expected.pay_amount);
  });

  it('no network: network, address and memo null, network_fee 0, confirmations 0; lowest minimum applies', async () => {
    const inv = await createInvoice(stack, m, { amount: '0.5' });
    expect(inv).toMatchObject({ network: null, address: null, memo: null, network_fee: '0', required_confirmations: 0, pay_amount: '0.505' });
    // TRC20's minimum (1) is above 0.5: choosing it is refused.
    const refused = await signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/network`, { network: 'TRC20' });
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'amount_below_minimum', field: 'amount' });
  });

  const refusals: [string, Record<string, unknown>, number, string, string][] = [
    ['amount below the network minimum', { amount: '0.99', network: 'TRC20' }, 422, 'amount_below_minimum', 'amount'],
    ['amount below the lowest minimum (no network)', { amount: '0.1' }, 422, 'amount_below_minimum', 'amount'],
    ['lifetime 4', { amount: '5', lifetime_minutes: 4 }, 422, 'lifetime_out_of_range', 'lifetime_minutes'],
    ['lifetime 10081', { amount: '5', lifetime_minutes: 10081 }, 422, 'lifetime_out_of_range', 'lifetime_minutes'],
    ['lifetime not an integer', { amount: '5', lifetime_minutes: 7.5 }, 422, 'lifetime_out_of_range', 'lifetime_minutes'],
    ['too many decimals', { amount: '1.123456789' }, 422, 'too_many_decimals', 'amount'],
    ['amount zero', { amount: '0' }, 422, 'amount_must_be_positive', 'amount'],
    ['amount not a decimal', { amount: '1e3' }, 422, 'invalid_amount', 'amount'],
    // Amount columns are numeric(38,18) (20 integer digits); the documented bound is 18 integer digits.
    ['amount with 21 integer digits', { amount: `1${'0'.repeat(20)}`, network: 'TRC20' }, 422, 'invalid_amount', 'amount'],
    ['amount with 19 integer digits', { amount: '1234567890123456789.5', network: 'BEP20' }, 422, 'invalid_amount', 'amount'],
    ['amount as a JSON number', { amount: 10 }, 400, 'invalid_body', 'amount'],
    ['amount missing', { network: 'TON' }, 400, 'missing_field', 'amount'],
    ['unknown network', { amount: '5', network: 'BTC' }, 422, 'unknown_network', 'network'],
    ['fee_payer other', { amount: '5', fee_payer: 'platform' }, 422, 'invalid_fee_payer', 'fee_payer'],
    ['webhook_url not HTTPS', { amount: '5', webhook_url: 'http://shop.example/hook' }, 422, 'invalid_webhook_url', 'webhook_url'],
    ['return_url not a URL', { amount: '5', return_url: 'not a url' }, 422, 'invalid_return_url', 'return_url'],
    ['metadata not an object', { amount: '5', metadata: [1] }, 400, 'invalid_body', 'metadata'],
    ['metadata too large', { amount: '5', metadata: { pad: 'x'.repeat(17 * 1024) } }, 422, 'metadata_too_large', 'metadata'],
    ['title too long', { amount: '5', title: 't'.repeat(201) }, 422, 'invalid_title', 'title'],
  ];

  it.each(refusals)('refuses %s with the documented status, code and field; nothing stored', async (_name, body, status, code, field) => {
    const before = await count(stack, 'select count(*)::int as n from invoices');
    const res = await signed(stack, m, 'POST', '/v1/invoices', { ...body, order_id: `refused-${code}-${Math.random()}` });
    expect(res.status).toBe(status);
    expect(res.body.error).toMatchObject({ code, field });
    expect(typeof res.body.error.message).toBe('string');
    expect(await count(stack, 'select count(*)::int as n from invoices')).toBe(before);
  });

  it('network change while pending recomputes fees, address/memo and confirmations; the old address cools down', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', network: 'TRC20' });
    const res = await signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/network`, { network: 'TON' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ network: 'TON', network_fee: '0', pay_amount: '10.1', required_confirmations: 3, status: 'pending' });
    expect(res.body.memo).toMatch(/^[0-9A-Z]{10}$/);
    expect(res.body.address).not.toBe(inv.address);
    const old = await stack.daemon.orm.em.fork().getConnection().execute<{ state: string }[]>(`select state from deposit_addresses where network = 'TRC20' and address = ?`, [inv.address]);
    expect(old[0]!.state).toBe('cooling');
    const back = await signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/network`, { network: 'BEP20' });
    expect(back.body).toMatchObject({ network: 'BEP20', memo: null, required_confirmations: 15 });
  });

  it('network change after a payment is refused with 409 and changes nothing', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', network: 'TON' });
    await pay(stack, 'TON', inv.address, '1', { memo: inv.memo });
    await waitForStatusOf(stack, m, inv.uuid, 'confirming');
    const res = await signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/network`, { network: 'TRC20' });
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'network_change_not_allowed', field: 'network' });
    const after = (await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body;
    expect(after).toMatchObject({ network: 'TON', memo: inv.memo, pay_amount: inv.pay_amount });
  });

  it('network change refusals: unknown network 422, missing network 400, expired invoice 409', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', lifetime_minutes: 5 });
    expect((await signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/network`, { network: 'DOGE' })).status).toBe(422);
    expect((await signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/network`, {})).status).toBe(400);
    await rpc((cb) => stack.clients.devnet.advanceTime({ seconds: '301' }, stack.operator, cb));
    await waitForStatusOf(stack, m, inv.uuid, 'expired');
    expect((await signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/network`, { network: 'TON' })).status).toBe(409);
  });
});
