import { startStack, createMerchant, signed, waitForStatus, eventually, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice, pay, mine, count, balance } from '../invoices/helpers';

/** POST /v1/invoices/{uuid}/cancel through the real gateway, gRPC daemon and PostgreSQL (devnet chains). */
describe('invoice cancel', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack({ env: { LATE_PAYMENT_WINDOW_MINUTES: '60' } });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const cancel = (creds: MerchantCredentials, uuid: string, body: unknown = {}) => signed(stack, creds, 'POST', `/v1/invoices/${uuid}/cancel`, body);

  it('a pending, empty invoice is canceled: 200, terminal, one invoice.canceled event; a second cancel is 409', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', network: 'TRC20' });
    const res = await cancel(m, inv.uuid);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ uuid: inv.uuid, status: 'canceled', received_amount: '0', paid_at: null });
    expect((await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body.status).toBe('canceled');
    expect(await count(stack, `select count(*)::int as n from outbox_events where aggregate_id = ? and type = 'invoice.canceled'`, [inv.uuid])).toBe(1);
    const again = await cancel(m, inv.uuid);
    expect({ status: again.status, code: again.body?.error?.code }).toEqual({ status: 409, code: 'cancel_not_allowed' });
    // A canceled invoice's network cannot change either.
    expect((await signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/network`, { network: 'BEP20' })).status).toBe(409);
  });

  it('409 once money was seen; the invoice goes on unchanged', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', network: 'TRC20' });
    await pay(stack, 'TRC20', inv.address, '11.1');
    await waitForStatus(stack, m, inv.uuid, 'confirming');
    const res = await cancel(m, inv.uuid);
    expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 409, code: 'cancel_not_allowed' });
    expect((await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body.status).toBe('confirming');
  });

  it('404 for another merchant’s invoice and for an unknown uuid; 422 for a body with fields; 401 unsigned', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', network: 'TRC20' });
    const other = await createMerchant(stack, { name: 'Other shop' });
    expect((await cancel(other, inv.uuid)).status).toBe(404);
    expect((await cancel(m, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    const withField = await cancel(m, inv.uuid, { reason: 'x' });
    expect({ status: withField.status, code: withField.body?.error?.code }).toEqual({ status: 422, code: 'unknown_field' });
    const unsigned = await fetch(`${stack.baseUrl}/v1/invoices/${inv.uuid}/cancel`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' });
    expect(unsigned.status).toBe(401);
    expect((await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body.status).toBe('pending');
  });

  it('parallel cancels: exactly one 200, the rest 409, one event', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', network: 'BEP20' });
    const results = await Promise.all(Array.from({ length: 6 }, () => cancel(m, inv.uuid)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
    expect(await count(stack, `select count(*)::int as n from outbox_events where aggregate_id = ? and type = 'invoice.canceled'`, [inv.uuid])).toBe(1);
  });

  it('money sent after the cancel is still recorded and booked (canceled -> paid, paid_late)', async () => {
    const shop = await createMerchant(stack, { name: 'Late shop' });
    const inv = await createInvoice(stack, shop, { amount: '10', network: 'BEP20' });
    expect((await cancel(shop, inv.uuid)).status).toBe(200);
    await pay(stack, 'BEP20', inv.address, inv.pay_amount);
    await eventually(async () => ((await signed(stack, shop, 'GET', `/v1/invoices/${inv.uuid}`)).body.received_amount === inv.pay_amount ? true : undefined));
    await mine(stack, 'BEP20', inv.required_confirmations);
    const paid = await waitForStatus(stack, shop, inv.uuid, 'paid');
    expect(paid).toMatchObject({ paid_late: true, received_amount: inv.pay_amount });
    expect(paid.payments).toHaveLength(1);
    expect((await balance(stack, shop)).available).toBe('10');
  });
});
