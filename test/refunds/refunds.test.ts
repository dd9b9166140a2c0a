import Decimal from 'decimal.js';
import { createMerchant, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { advance, balance, count, createInvoice, mine, payAndConfirm, type Json } from '../invoices/helpers';
import { addressOf, WD_ENV } from '../withdrawals/support';
import { eventually, rpc } from '../support/stack';

/**
 * POST /v1/invoices/{uuid}/refunds on a real stack (daemon, gateway, devnet TRC20): the default
 * amount by invoice status, the bound by what the invoice received (parallel requests included),
 * the fee deducted or paid by the merchant, review above the refund caps, and refused input that
 * writes nothing. TRC20 here: withdrawal fee 1, minimum 1 (WD_ENV).
 */
describe('refunds', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  const buyer = addressOf('TRC20', 'refund-buyer');
  const refund = (uuid: string, body: Record<string, unknown>) => signed(stack, m, 'POST', `/v1/invoices/${uuid}/refunds`, body);
  const refundRows = () => count(stack, "select count(*)::int as n from withdrawals where kind = 'refund'");
  const outboxOf = async (uuid: string): Promise<string[]> =>
    (await stack.daemon.orm.em.fork().execute<{ type: string }[]>('select type from outbox_events where aggregate_id = ? order by seq', [uuid])).map((r) => r.type);

  /** An invoice of `amount` paid with its pay_amount plus `extra` on TRC20, confirmed, in `status`. */
  async function invoicePaid(amount: string, extra: string, status: string): Promise<Json> {
    const inv = await createInvoice(stack, m, { amount, network: 'TRC20', lifetime_minutes: 60 });
    return payAndConfirm(stack, m, inv, new Decimal(inv.pay_amount).plus(extra).toString(), status);
  }

  beforeAll(async () => {
    stack = await startStack({ env: WD_ENV });
    m = await createMerchant(stack, { platform_fee_percent: '0' });
    // Enough balance for every refund below (platform fee 0: each invoice credits what it received less the network fee).
    await invoicePaid('500', '0', 'paid');
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('overpaid: the excess by default, the network fee deducted, paid out to the buyer', async () => {
    const inv = await invoicePaid('10', '3.5', 'overpaid');
    const res = await refund(inv.uuid, { address: buyer, reason: 'paid too much' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      invoice_uuid: inv.uuid,
      status: 'processing',
      network: 'TRC20',
      address: buyer,
      amount: '3.5',
      fee: 'deducted',
      network_fee: '1',
      net_payout: '2.5',
      reason: 'paid too much',
    });
    await eventually(
      async () => {
        await mine(stack, 'TRC20', 1);
        const got = await signed(stack, m, 'GET', `/v1/refunds/${res.body.uuid}`);
        return got.body.status === 'completed' ? got.body : undefined;
      },
      20_000,
      'refund completed',
    );
    expect(await outboxOf(res.body.uuid)).toEqual(['refund.created', 'refund.completed']);
    // GET /v1/withdrawals lists withdrawals only.
    expect((await signed(stack, m, 'GET', '/v1/withdrawals')).body.withdrawals).toEqual([]);
    const list = await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}/refunds`);
    expect(list.status).toBe(200);
    expect(list.body.refunds.map((r: Json) => r.uuid)).toEqual([res.body.uuid]);
  }, 60_000);

  it('paid: an explicit amount is required (422, nothing written); a partial then the rest, not a unit more', async () => {
    const inv = await invoicePaid('20', '0', 'paid');
    const before = await refundRows();
    const missing = await refund(inv.uuid, { address: buyer });
    expect(missing.status).toBe(422);
    expect(missing.body.error.code).toBe('amount_required');
    expect(await refundRows()).toBe(before);

    const first = await refund(inv.uuid, { address: buyer, amount: '5', fee: 'merchant', reference: 'r-paid-1' });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ amount: '5', fee: 'merchant', net_payout: '5' });
    const again = await refund(inv.uuid, { address: buyer, amount: '7', reference: 'r-paid-1' });
    expect(again.status).toBe(200);
    expect(again.body.uuid).toBe(first.body.uuid);

    // What the invoice received (its pay_amount, the buyer's network fee included) less the 5.
    const left = new Decimal(inv.received_amount).minus(5).toString();
    const tooMuch = await refund(inv.uuid, { address: buyer, amount: new Decimal(left).plus('0.000001').toString() });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.error).toMatchObject({ code: 'refund_exceeds_received' });
    const rest = await refund(inv.uuid, { address: buyer, amount: left });
    expect(rest.status).toBe(201);
    const more = await refund(inv.uuid, { address: buyer, amount: '1' });
    expect(more.status).toBe(422);
    expect(more.body.error.code).toBe('nothing_to_refund');
  }, 60_000);

  it('parallel refunds of one invoice never sum above what it received', async () => {
    const inv = await invoicePaid('30', '0', 'paid');
    const answers = await Promise.all(Array.from({ length: 8 }, () => refund(inv.uuid, { address: buyer, amount: '7' })));
    const statuses = answers.map((a) => a.status).sort();
    // 4 × 7 = 28 ≤ 30; a fifth would make 35.
    expect(statuses).toEqual([201, 201, 201, 201, 422, 422, 422, 422]);
    const [row] = await stack.daemon.orm.em.fork().execute<{ s: string }[]>('select coalesce(sum(refund_amount), 0)::text as s from withdrawals where invoice_uuid = ?', [inv.uuid]);
    expect(Number(row!.s)).toBe(28);
  }, 60_000);

  it('underpaid: everything received by default', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', network: 'TRC20', lifetime_minutes: 60 });
    await payAndConfirm(stack, m, inv, '4', 'partially_paid');
    await advance(stack, 61 * 60);
    await eventually(async () => ((await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body.status === 'underpaid' ? true : undefined), 10_000, 'underpaid');
    const res = await refund(inv.uuid, { address: buyer });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ amount: '4', net_payout: '3' });
  }, 60_000);

  it('above the refund caps (set-caps --refund-per-refund): review; an operator approves it like a withdrawal', async () => {
    const inv = await invoicePaid('300', '0', 'paid');
    await rpc((cb) => stack.clients.merchants.updateMerchant({ merchant_id: m.merchantId, cap_per_refund: '40', cap_daily_refund: '100000' }, stack.operator, cb));
    const within = await refund(inv.uuid, { address: buyer, amount: '40' });
    expect(within.body.status).toBe('processing');
    const heldBefore = new Decimal((await balance(stack, m)).held);
    const res = await refund(inv.uuid, { address: buyer, amount: '40.5' });
    expect(res.status).toBe(201);
    expect(res.body.status).toBe('review');
    expect(new Decimal((await balance(stack, m)).held).minus(heldBefore).gte('40.5')).toBe(true);
    await rpc((cb) => stack.clients.operator.approveWithdrawal({ uuid: res.body.uuid }, stack.operator, cb));
    const after = await signed(stack, m, 'GET', `/v1/refunds/${res.body.uuid}`);
    expect(['processing', 'completed']).toContain(after.body.status);
    await rpc((cb) => stack.clients.merchants.updateMerchant({ merchant_id: m.merchantId, cap_per_refund: '200', cap_daily_refund: '1000' }, stack.operator, cb));
  }, 60_000);

  it('cancel: a refund in review is canceled, its hold released, refund.canceled; a processing one is 409; another merchant 404', async () => {
    const inv = await invoicePaid('300', '0', 'paid');
    const before = await balance(stack, m);
    const res = await refund(inv.uuid, { address: buyer, amount: '250' });
    expect(res.body.status).toBe('review');
    const other = await createMerchant(stack, {});
    expect((await signed(stack, other, 'POST', `/v1/refunds/${res.body.uuid}/cancel`)).status).toBe(404);
    expect((await signed(stack, other, 'GET', `/v1/refunds/${res.body.uuid}`)).status).toBe(404);
    const canceled = await signed(stack, m, 'POST', `/v1/refunds/${res.body.uuid}/cancel`);
    expect(canceled.status).toBe(200);
    expect(canceled.body.status).toBe('canceled');
    expect((await balance(stack, m)).available).toBe(before.available);
    expect(await outboxOf(res.body.uuid)).toEqual(['refund.created', 'refund.canceled']);
    expect((await signed(stack, m, 'POST', `/v1/refunds/${res.body.uuid}/cancel`)).status).toBe(409);
    // The canceled refund no longer counts against the invoice: its whole amount can be refunded again.
    const small = await refund(inv.uuid, { address: buyer, amount: '10' });
    expect(small.body.status).toBe('processing');
    const busy = await signed(stack, m, 'POST', `/v1/refunds/${small.body.uuid}/cancel`);
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('refund_not_cancelable');
  }, 60_000);

  it('bad input: documented 4xx, nothing written', async () => {
    const inv = await invoicePaid('10', '2', 'overpaid');
    const pending = await createInvoice(stack, m, { amount: '10', network: 'TRC20', lifetime_minutes: 60 });
    const before = await refundRows();
    const cases: [string, Record<string, unknown>, number, string][] = [
      [inv.uuid, { address: 'not-an-address' }, 422, 'invalid_address'],
      [inv.uuid, { address: addressOf('POLYGON', 'x') }, 422, 'invalid_address'],
      [inv.uuid, { address: buyer, memo: 'm' }, 422, 'memo_not_supported'],
      [inv.uuid, { address: buyer, fee: 'buyer' }, 422, 'invalid_fee'],
      [inv.uuid, { address: buyer, amount: 'ten' }, 422, 'invalid_amount'],
      [inv.uuid, { address: buyer, surprise: 1 }, 422, 'unknown_field'],
      [inv.uuid, {}, 400, 'missing_field'],
      [inv.uuid, { address: buyer, amount: '0.5' }, 422, 'amount_below_minimum'],
      [pending.uuid, { address: buyer, amount: '1' }, 409, 'invoice_not_refundable'],
      ['00000000-0000-4000-8000-000000000000', { address: buyer }, 404, ''],
    ];
    for (const [uuid, body, status, code] of cases) {
      const res = await refund(uuid, body);
      expect({ body, status: res.status }).toEqual({ body, status });
      if (code) expect({ body, code: res.body.error.code }).toEqual({ body, code });
    }
    // Another merchant's invoice and refund are 404.
    const other = await createMerchant(stack, {});
    expect((await signed(stack, other, 'POST', `/v1/invoices/${inv.uuid}/refunds`, { address: buyer })).status).toBe(404);
    expect(await refundRows()).toBe(before);
  }, 60_000);
});
