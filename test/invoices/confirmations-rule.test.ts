import { startStack, createMerchant, signed, waitForStatus, type Stack, type MerchantCredentials } from '../support/stack';
import { count, createInvoice, mine, pay } from './helpers';

/**
 * One rule for an invoice's `confirmations` and its payments' (docs/api.md, Confirmations): each
 * payment counts up to `required_confirmations` and stops there; the invoice's is the smallest of
 * its live payments'. A paid TRC20 invoice (20 required) used to show 20 while its payment showed
 * the watcher's raw count (30 when 30 blocks came at once, or more blocks mined after it was paid).
 */
describe('confirmations: the invoice and payments[] follow one rule', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** The webhook `data` of the invoice's last event of this type, as stored in the outbox. */
  async function webhookData(uuid: string, type: string): Promise<{ confirmations: number; payments: { confirmations: number }[] }> {
    const rows = await stack.daemon.orm.em
      .fork()
      .getConnection()
      .execute<{ body: string }[]>('select body from outbox_events where type = ? and aggregate_id = ? order by seq desc limit 1', [type, uuid]);
    return (JSON.parse(rows[0]!.body) as { data: { confirmations: number; payments: { confirmations: number }[] } }).data;
  }

  it('30 blocks at once on TRC20 (20 required): the invoice and its payment both say 20, in REST, the list and the webhook', async () => {
    const inv = await createInvoice(stack, m, { amount: '5', network: 'TRC20' });
    expect(inv.required_confirmations).toBe(20);
    await pay(stack, 'TRC20', inv.address, inv.pay_amount);
    await mine(stack, 'TRC20', 30);
    const paid = await waitForStatus(stack, m, inv.uuid, 'paid');
    expect({ invoice: paid.confirmations, payments: paid.payments.map((p: { confirmations: number }) => p.confirmations) }).toEqual({ invoice: 20, payments: [20] });
    // The stored count is the watcher's (higher): only the shown one stops at the requirement.
    expect(await count(stack, 'select max(confirmations) as n from invoice_payments where invoice_uuid = ?', [inv.uuid])).toBeGreaterThan(20);
    const listed = (await signed(stack, m, 'GET', '/v1/invoices')).body.invoices.find((i: { uuid: string }) => i.uuid === inv.uuid);
    expect(listed.payments[0].confirmations).toBe(20);
    const hook = await webhookData(inv.uuid, 'invoice.paid');
    expect({ invoice: hook.confirmations, payments: hook.payments.map((p) => p.confirmations) }).toEqual({ invoice: 20, payments: [20] });
  });

  it('while confirming, the invoice shows its payment’s count; more blocks after it is paid change neither', async () => {
    const inv = await createInvoice(stack, m, { amount: '5', network: 'TRC20' });
    await pay(stack, 'TRC20', inv.address, inv.pay_amount);
    await mine(stack, 'TRC20', 4);
    const confirming = await waitForStatus(stack, m, inv.uuid, 'confirming');
    expect(confirming.confirmations).toBe(confirming.payments[0].confirmations);
    expect(confirming.confirmations).toBeLessThan(20);
    await mine(stack, 'TRC20', 16);
    await waitForStatus(stack, m, inv.uuid, 'paid');
    await mine(stack, 'TRC20', 15);
    const after = (await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body;
    expect({ invoice: after.confirmations, payment: after.payments[0].confirmations }).toEqual({ invoice: 20, payment: 20 });
  });
});
