import { startStack, createMerchant, signed, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice } from './helpers';

/** An unknown field in a POST body is refused with 422 unknown_field naming it, and nothing is written. */
describe('strict request bodies: invoices', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** Rows a refused creation must not leave behind: invoices, allocated pool addresses, outbox events. */
  async function traces(): Promise<{ invoices: number; allocated: number; events: number }> {
    const conn = stack.daemon.orm.em.fork().getConnection();
    const [row] = await conn.execute<{ invoices: string; allocated: string; events: string }[]>(
      `select (select count(*) from invoices where merchant_id = ?) as invoices,
              (select count(*) from deposit_addresses where invoice_uuid is not null) as allocated,
              (select count(*) from outbox_events) as events`,
      [m.merchantId],
    );
    return { invoices: Number(row!.invoices), allocated: Number(row!.allocated), events: Number(row!.events) };
  }

  async function expectRefused(path: string, body: unknown, status: number, code: string, field: string): Promise<{ message: string }> {
    const before = await traces();
    const res = await signed(stack, m, 'POST', path, body);
    expect({ status: res.status, code: res.body?.error?.code, field: res.body?.error?.field }).toEqual({ status, code, field });
    expect(Object.keys(res.body.error).sort()).toEqual(['code', 'field', 'message']);
    expect(await traces()).toEqual(before);
    return res.body.error;
  }

  it('refuses a typo of a field instead of creating the invoice with the default', async () => {
    expect(await traces()).toEqual({ invoices: 0, allocated: 0, events: 0 });
    const e = await expectRefused('/v1/invoices', { amount: '5', netwrok: 'TON' }, 422, 'unknown_field', 'netwrok');
    expect(e.message).toContain('"netwrok"');
    expect(e.message).toContain('amount, currency, order_id, title, network, fee_payer, lifetime_minutes, webhook_url, return_url, cancel_url, metadata');
    await expectRefused('/v1/invoices', { amount: '5', network: 'TRC20', lifetime_minute: 30 }, 422, 'unknown_field', 'lifetime_minute');
    // Several: the first is named in `field`, all in the message.
    const many = await expectRefused('/v1/invoices', { amount: '5', Amount: '6', orderId: 'x' }, 422, 'unknown_field', 'Amount');
    expect(many.message).toMatch(/^unknown fields "Amount", "orderId";/);
    // Checked before every other rule: a body with a typo and a bad amount is told about the typo.
    await expectRefused('/v1/invoices', { amount: 'x', titel: 'T' }, 422, 'unknown_field', 'titel');
    // A key that is not ASCII is named as sent (it travels from the daemon as UTF-8 bytes).
    await expectRefused('/v1/invoices', { amount: '5', réseau: 'TON' }, 422, 'unknown_field', 'réseau');
    // An order_id already used does not make a body with an unknown field acceptable.
    const first = await createInvoice(stack, m, { amount: '5', order_id: 'strict-1' });
    await expectRefused('/v1/invoices', { amount: '5', order_id: 'strict-1', color: 'red' }, 422, 'unknown_field', 'color');
    expect((await signed(stack, m, 'GET', `/v1/invoices/${first.uuid}`)).body.status).toBe('pending');
  });

  it('refuses a currency other than USDT and accepts "USDT" stated', async () => {
    const e = await expectRefused('/v1/invoices', { amount: '5', currency: 'EUR' }, 422, 'unsupported_currency', 'currency');
    expect(e.message).toContain('USDT');
    await expectRefused('/v1/invoices', { amount: '5', currency: 'usdt' }, 422, 'unsupported_currency', 'currency');
    await expectRefused('/v1/invoices', { amount: '5', currency: null }, 422, 'unsupported_currency', 'currency');
    const inv = await createInvoice(stack, m, { amount: '5', currency: 'USDT', network: 'TRC20' });
    expect(inv.currency).toBe('USDT');
    expect(inv.amount).toBe('5');
  });

  it('refuses an unknown field when choosing a network, leaving the invoice as it was', async () => {
    const inv = await createInvoice(stack, m, { amount: '5' });
    await expectRefused(`/v1/invoices/${inv.uuid}/network`, { network: 'TON', memo: 'mine' }, 422, 'unknown_field', 'memo');
    await expectRefused(`/v1/invoices/${inv.uuid}/network`, { netwrok: 'TON' }, 422, 'unknown_field', 'netwrok');
    const after = (await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body;
    expect({ network: after.network, address: after.address, memo: after.memo }).toEqual({ network: null, address: null, memo: null });
    const chosen = await signed(stack, m, 'POST', `/v1/invoices/${inv.uuid}/network`, { network: 'TON' });
    expect(chosen.status).toBe(200);
    expect(chosen.body.network).toBe('TON');
  });
});
