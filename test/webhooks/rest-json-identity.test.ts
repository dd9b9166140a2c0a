import type { Merchant } from '../../src/grpc/generated/chainpay/v1/merchants';
import type { Withdrawal } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { INVOICE_STATUSES } from '../../src/domain/invoice-statuses';
import { WITHDRAWAL_STATUSES } from '../../src/domain/withdrawal-context';
import { createMerchant, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { advance, createInvoice, mine, pay, reorg, type Json } from '../invoices/helpers';
import { addressOf, DAY_S, fund, stackRpcs, waitBroadcast, waitForWithdrawal, WD_ENV, whitelist, type Rpcs } from '../withdrawals/support';

jest.setTimeout(120_000);

/**
 * Issue 33: one definition of the REST JSON of Invoice and Withdrawal (src/lib/rest-json.ts)
 * serves the gateway's answers and the webhook bodies. For every invoice status and every
 * withdrawal status, through the real daemon, gateway and PostgreSQL: the `data` of the event the
 * change wrote is the REST body the gateway answers for the same entity at that moment (nothing
 * moved on the devnet since: blocks are mined only by the test), field by field and byte for byte.
 */
describe('webhook data = REST body, for every status (real daemon + gateway)', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  let r: Rpcs;
  const seen = { invoice: new Set<string>(), withdrawal: new Set<string>() };

  beforeAll(async () => {
    stack = await startStack({ env: { ...WD_ENV, LATE_PAYMENT_WINDOW_MINUTES: '60' } });
    m = await createMerchant(stack, { name: 'Identity shop' });
    r = stackRpcs(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** The newest event of `type` for the entity: its body as stored (the bytes the dispatcher signs and sends). */
  const eventBody = async (uuid: string, type: string): Promise<string> => {
    const rows = await stack.daemon.orm.em.fork().execute<{ body: string }[]>('select body from outbox_events where aggregate_id = ? and type = ? order by seq desc limit 1', [uuid, type]);
    if (!rows[0]) throw new Error(`no ${type} event for ${uuid}`);
    return rows[0].body;
  };

  /** The event's data against the REST answer `text` of the same moment: field by field, then as bytes. */
  const expectSame = (kind: 'invoice' | 'withdrawal', body: string, restText: string, status: string): void => {
    const event = JSON.parse(body) as { id: string; type: string; created_at: string; data: Record<string, unknown> };
    const rest = JSON.parse(restText) as Record<string, unknown>;
    expect(rest.status).toBe(status);
    expect(Object.keys(event.data)).toEqual(Object.keys(rest));
    for (const key of Object.keys(rest)) expect([key, event.data[key]]).toEqual([key, rest[key]]);
    // The very text: `data` is spliced in as the gateway's body is (the metadata's numbers included).
    expect(body).toBe(`${JSON.stringify({ id: event.id, type: event.type, created_at: event.created_at }).slice(0, -1)},"data":${restText}}`);
    seen[kind].add(status);
  };

  const invoiceNow = async (uuid: string, status: string, type = `invoice.${status}`): Promise<Json> => {
    const body = await waitForStatus(stack, m, uuid, status);
    const res = await signed(stack, m, 'GET', `/v1/invoices/${uuid}`);
    expectSame('invoice', await eventBody(uuid, type), res.text, status);
    return body;
  };

  const fields = (n: number): Record<string, unknown> => ({
    order_id: `order-ünï-${n}`,
    title: `Order 🧾 ${n}`,
    return_url: 'https://shop.example/ok',
    cancel_url: 'https://shop.example/cancel',
    metadata: { n, cart: { items: ['a', 'b'], total: '12.50' }, huge: 1234567890123, ok: true, none: null },
  });

  it('confirming, partially_paid, paid (with a payment list) on TON with a memo', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', network: 'TON', ...fields(1) });
    await pay(stack, 'TON', inv.address, '4', { memo: inv.memo });
    await invoiceNow(inv.uuid, 'confirming');
    await mine(stack, 'TON', inv.required_confirmations);
    await invoiceNow(inv.uuid, 'partially_paid');
    await pay(stack, 'TON', inv.address, '6.1', { memo: inv.memo });
    await mine(stack, 'TON', inv.required_confirmations);
    const paid = await invoiceNow(inv.uuid, 'paid');
    expect(paid.payments).toHaveLength(2);
  });

  it('overpaid', async () => {
    const inv = await createInvoice(stack, m, { amount: '10', network: 'POLYGON', ...fields(2) });
    await pay(stack, 'POLYGON', inv.address, '12');
    await invoiceNow(inv.uuid, 'confirming');
    await mine(stack, 'POLYGON', inv.required_confirmations);
    await invoiceNow(inv.uuid, 'overpaid');
  });

  it('underpaid (partial, then expiry)', async () => {
    const inv = await createInvoice(stack, m, { amount: '20', network: 'BEP20', lifetime_minutes: 5, ...fields(3) });
    await pay(stack, 'BEP20', inv.address, '5');
    await invoiceNow(inv.uuid, 'confirming');
    await mine(stack, 'BEP20', inv.required_confirmations);
    await invoiceNow(inv.uuid, 'partially_paid');
    await advance(stack, 6 * 60);
    await invoiceNow(inv.uuid, 'underpaid');
  });

  it('expired with no network chosen, then expired with a network and paid late (invoice.paid and invoice.paid_late)', async () => {
    const bare = await createInvoice(stack, m, { amount: '3', lifetime_minutes: 5 });
    const inv = await createInvoice(stack, m, { amount: '3', network: 'SOLANA', lifetime_minutes: 5, ...fields(4) });
    await advance(stack, 5 * 60 + 1);
    await invoiceNow(bare.uuid, 'expired');
    await invoiceNow(inv.uuid, 'expired');
    await pay(stack, 'SOLANA', inv.address, '3.03');
    await mine(stack, 'SOLANA', inv.required_confirmations);
    const late = await invoiceNow(inv.uuid, 'paid');
    expect(late.paid_late).toBe(true);
    await invoiceNow(inv.uuid, 'paid', 'invoice.paid_late');
  });

  it('pending again after a reorg (invoice.reverted)', async () => {
    await mine(stack, 'ARBITRUM', 25);
    const inv = await createInvoice(stack, m, { amount: '8', network: 'ARBITRUM', ...fields(5) });
    // Pending has no event at creation (DESIGN.md "Webhooks"): its event is invoice.reverted.
    await pay(stack, 'ARBITRUM', inv.address, '8.08');
    await invoiceNow(inv.uuid, 'confirming');
    await mine(stack, 'ARBITRUM', 2);
    await reorg(stack, 'ARBITRUM', 4);
    const back = await invoiceNow(inv.uuid, 'pending', 'invoice.reverted');
    expect(back.payments[0].status).toBe('reverted');
  });

  it('every invoice status was compared', () => {
    expect([...seen.invoice].sort()).toEqual([...INVOICE_STATUSES].sort());
  });

  describe('withdrawals', () => {
    const payee = addressOf('TRC20', 'identity-payee');
    beforeAll(async () => {
      await fund(r, m.merchantId, '300');
      await whitelist(r, m.merchantId, 'TRC20', payee);
      await advance(stack, DAY_S);
      await rpc<Merchant>((cb) => stack.clients.merchants.updateMerchant({ merchant_id: m.merchantId, cap_per_withdrawal: '50', cap_daily: '100' }, stack.operator, cb));
    });

    const withdrawalNow = async (uuid: string, status: string): Promise<void> => {
      await waitForWithdrawal(stack, m, uuid, status);
      const res = await signed(stack, m, 'GET', `/v1/withdrawals/${uuid}`);
      expectSame('withdrawal', await eventBody(uuid, `withdrawal.${status}`), res.text, status);
    };

    it('processing (the creation answer: the payout is broadcast at once after), then completed', async () => {
      const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '10.5', reference: 'ü-ref-1' });
      expect(res.status).toBe(201);
      // The event was written by the creating transaction; the 201 is the REST body of that commit.
      expectSame('withdrawal', await eventBody(res.body.uuid, 'withdrawal.processing'), res.text, 'processing');
      await waitBroadcast(stack.daemon.orm, res.body.uuid);
      await mine(stack, 'TRC20', 3);
      await withdrawalNow(res.body.uuid, 'completed');
    });

    it('review, then rejected', async () => {
      const res = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '60' });
      expect(res.status).toBe(201);
      await withdrawalNow(res.body.uuid, 'review');
      await rpc<Withdrawal>((cb) => stack.clients.operator.rejectWithdrawal({ uuid: res.body.uuid, reason: 'unusual destination' }, stack.operator, cb));
      await withdrawalNow(res.body.uuid, 'rejected');
    });

    it('every withdrawal status but failed was compared (failed: test/withdrawals/hardhat-no-gas.test.ts, the one path to it)', () => {
      expect([...seen.withdrawal].sort()).toEqual(WITHDRAWAL_STATUSES.filter((s) => s !== 'failed').sort());
    });
  });
});
