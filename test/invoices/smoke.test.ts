import { ChainpayClient, ChainpayError, WebhookVerificationError, isInvoiceEvent, type Invoice, type InvoiceStatus } from '../../clients/typescript/src';
import { startStack, createMerchant, eventually, rpc, type Stack, type MerchantCredentials } from '../support/stack';
import { makeCert, Receiver, type TestCert } from '../webhooks/support';

/**
 * The invoice walk end to end, driven through the TypeScript client (clients/typescript) as a
 * shop would: create, pay on devnet, confirm, paid; the webhooks verified with the client's
 * verifier; the list iterated; refusals as ChainpayError. This test signs with the spec's body
 * scheme (the withdrawal flow test signs timestamped).
 */
describe('invoice smoke (through the TypeScript client)', () => {
  let cert: TestCert;
  let receiver: Receiver;
  let stack: Stack;
  let m: MerchantCredentials;
  let client: ChainpayClient;
  beforeAll(async () => {
    cert = makeCert();
    receiver = await Receiver.start(cert);
    stack = await startStack({ daemon: { webhooks: { ca: cert.cert } } });
    m = await createMerchant(stack);
    client = new ChainpayClient({ baseUrl: stack.baseUrl, apiKey: m.apiKey, apiSecret: m.apiSecret, webhookSecret: m.webhookSecret, signing: 'body' });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.down();
  });

  const waitForStatus = (uuid: string, status: InvoiceStatus): Promise<Invoice> =>
    eventually(
      async () => {
        const inv = await client.getInvoice(uuid);
        return inv.status === status ? inv : undefined;
      },
      10_000,
      `invoice ${uuid} to be ${status}`,
    );

  it('create, pay on devnet, confirm, paid; the paid webhook verifies with the client', async () => {
    const inv = await client.createInvoice({ amount: '10', network: 'TRC20', order_id: 'o-1', metadata: { a: 1 }, webhook_url: receiver.url('/shop') });
    expect(inv.status).toBe('pending');
    expect(inv).toMatchObject({ amount: '10', currency: 'USDT', order_id: 'o-1', metadata: { a: 1 }, livemode: false });
    expect(typeof inv.pay_amount).toBe('string');
    // A repeated order_id answers the same invoice (a retried checkout creates nothing new).
    expect((await client.createInvoice({ amount: '10', network: 'TRC20', order_id: 'o-1' })).uuid).toBe(inv.uuid);

    const pay = await rpc<{ tx_hash: string }>((cb) => stack.clients.devnet.pay({ network: 'TRC20', to: inv.address!, amount: inv.pay_amount }, stack.operator, cb));
    expect(pay.tx_hash).toBeTruthy();
    expect((await waitForStatus(inv.uuid, 'confirming')).tx_hash).toBe(pay.tx_hash);
    await rpc((cb) => stack.clients.devnet.mine({ network: 'TRC20', blocks: inv.required_confirmations }, stack.operator, cb));
    const paid = await waitForStatus(inv.uuid, 'paid');
    expect(paid.paid_at).not.toBeNull();
    expect(await client.getBalance()).toEqual({ available: '10', held: '0', currency: 'USDT' });

    // The shop's webhook handler: verify the raw bytes (both signatures), then act on the event.
    const deliveries = await eventually(async () => (receiver.at('/shop').length >= 2 ? receiver.at('/shop') : undefined), 10_000, 'two webhooks');
    const events = deliveries.map((d) => client.webhooks.verify(d.body, d.headers));
    expect(events.map((e) => e.type)).toEqual(['invoice.confirming', 'invoice.paid']);
    const paidEvent = events[1]!;
    expect(isInvoiceEvent(paidEvent) && paidEvent.data).toMatchObject({ uuid: inv.uuid, status: 'paid', order_id: 'o-1', amount: '10', metadata: { a: 1 } });
    // The event log holds the very same events: a shop that polls instead sees them too.
    const logged = await eventually(async () => {
      const all = await client.events.list({ limit: 1 }).toArray();
      return all.length >= 2 ? all : undefined;
    });
    expect(logged).toEqual(events);
    // A forged or replayed delivery does not verify.
    const real = deliveries[1]!;
    expect(() => client.webhooks.verify(Buffer.from(real.body.toString('utf8').replace('"paid"', '"overpaid"')), real.headers)).toThrow(WebhookVerificationError);
    expect(() => client.webhooks.verify(real.body, real.headers, { now: () => Date.now() + 10 * 60_000 })).toThrow(expect.objectContaining({ reason: 'stale_timestamp' }));
    const stranger = new ChainpayClient({ baseUrl: stack.baseUrl, apiKey: m.apiKey, apiSecret: 'sk_not_the_secret' });
    expect(() => stranger.webhooks.verify(real.body, real.headers)).toThrow(expect.objectContaining({ reason: 'invalid_signature' }));
  });

  it('lists iterate page by page through next_cursor', async () => {
    for (const n of [1, 2, 3]) await client.createInvoice({ amount: '5', network: 'BEP20', order_id: `list-${n}` });
    const listed: string[] = [];
    for await (const inv of client.invoices.list({ network: 'BEP20', limit: 2 })) listed.push(inv.order_id!);
    expect(listed).toEqual(['list-3', 'list-2', 'list-1']);
    const paid = await client.invoices.list({ status: 'paid' }).toArray();
    expect(paid.map((i) => i.order_id)).toEqual(['o-1']);
  });

  it('refusals are ChainpayError with the status, code and field of the error body', async () => {
    const unknown = await client.getInvoice('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ChainpayError);
    expect(unknown).toMatchObject({ status: 404, code: 'invoice_not_found' });
    // A field the body does not take (the types refuse it too: hence the cast).
    const typo = await client.createInvoice({ amount: '5', netwrok: 'TRC20' } as unknown as { amount: string }).catch((e: unknown) => e);
    expect(typo).toMatchObject({ status: 422, code: 'unknown_field', field: 'netwrok' });
    const wrongKey = new ChainpayClient({ baseUrl: stack.baseUrl, apiKey: m.apiKey, apiSecret: 'sk_wrong', signing: 'body' });
    expect(await wrongKey.getBalance().catch((e: unknown) => e)).toMatchObject({ status: 401, code: 'invalid_signature' });
    expect((await client.listNetworks()).networks.map((n) => n.code)).toContain('TRC20');
  });
});
