import { createMerchant, signed, rpc, eventually, waitForStatus, type Stack, type MerchantCredentials } from '../support/stack';
import type { ListWebhooksResponse } from '../../src/grpc/generated/chainpay/v1/operator';
import { startWebhookStack } from './stack';
import { makeCert, Receiver, verifyServiceSignature, verifyStandardWebhook, type TestCert } from './support';

describe('webhook delivery', () => {
  let cert: TestCert;
  let receiver: Receiver;
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    cert = makeCert();
    receiver = await Receiver.start(cert);
    stack = await startWebhookStack({ ca: cert.cert });
    m = await createMerchant(stack, { webhook_url: receiver.url('/dashboard') });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.down();
  });

  const events = async (): Promise<ListWebhooksResponse> => rpc<ListWebhooksResponse>((cb) => stack.clients.operator.listWebhooks({ merchant_id: m.merchantId, limit: 0 }, stack.operator, cb));

  it('invoice events arrive once each, in order, signed both ways, with the metadata', async () => {
    const metadata = { order: 'A-1', customer: { id: 7, tags: ['x'] } };
    const res = await signed(stack, m, 'POST', '/v1/invoices', { amount: '12.5', network: 'TRC20', webhook_url: receiver.url('/invoice'), metadata });
    expect(res.status).toBe(201);
    const inv = res.body;
    await rpc((cb) => stack.clients.devnet.pay({ network: 'TRC20', to: inv.address, amount: inv.pay_amount }, stack.operator, cb));
    await waitForStatus(stack, m, inv.uuid, 'confirming');
    await rpc((cb) => stack.clients.devnet.mine({ network: 'TRC20', blocks: inv.required_confirmations }, stack.operator, cb));
    await waitForStatus(stack, m, inv.uuid, 'paid');

    await eventually(async () => ((await events()).events.every((e) => e.status === 'delivered') && receiver.at('/invoice').length >= 2 ? true : undefined), 10_000, 'both events delivered');
    await new Promise((r) => setTimeout(r, 600)); // a duplicate would show up within a few polls
    const got = receiver.at('/invoice');
    expect(got.map((r) => r.json.type)).toEqual(['invoice.confirming', 'invoice.paid']);
    expect(new Set(got.map((r) => r.json.id)).size).toBe(2);
    expect(receiver.at('/dashboard')).toHaveLength(0);
    for (const r of got) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['webhook-id']).toBe(r.json.id);
      expect(r.json.id).toMatch(/^evt_[0-9a-f]{24}$/);
      expect(verifyServiceSignature(m.apiSecret, r.body, r.headers['x-service-signature'])).toBe(true);
      expect(verifyStandardWebhook(m.webhookSecret, r.headers, r.body)).toBe(true);
      expect(verifyServiceSignature(m.apiSecret, Buffer.concat([r.body, Buffer.from(' ')]), r.headers['x-service-signature'])).toBe(false);
      expect(verifyStandardWebhook('whsec_' + Buffer.alloc(24, 1).toString('base64'), r.headers, r.body)).toBe(false);
      expect(r.json.data.uuid).toBe(inv.uuid);
      expect(r.json.data.metadata).toEqual(metadata);
      expect(Object.keys(r.json)).toEqual(['id', 'type', 'created_at', 'data']);
    }
    expect(got[0]!.json.data.status).toBe('confirming');
    expect(got[1]!.json.data.status).toBe('paid');

    const listed = (await events()).events.filter((e) => e.aggregate_id === inv.uuid);
    expect(listed.map((e) => e.type).sort()).toEqual(['invoice.confirming', 'invoice.paid']);
    for (const e of listed) {
      expect(e.target_url).toBe(receiver.url('/invoice'));
      expect(e.deliveries).toHaveLength(1);
      expect(e.deliveries[0]).toMatchObject({ attempt: 1, status_code: 200 });
      expect(e.deliveries[0]!.error).toBeUndefined();
    }
  });

  it('an invoice without webhook_url reports to the merchant URL; a rotated webhook secret signs the next event', async () => {
    const rotated = await rpc<{ webhook_secret: string }>((cb) => stack.clients.merchants.rotateWebhookSecret({ merchant_id: m.merchantId }, stack.operator, cb));
    const res = await signed(stack, m, 'POST', '/v1/invoices', { amount: '3', network: 'TRC20', metadata: { k: 'v' } });
    const inv = res.body;
    await rpc((cb) => stack.clients.devnet.pay({ network: 'TRC20', to: inv.address, amount: inv.pay_amount }, stack.operator, cb));
    const hit = await eventually(async () => receiver.at('/dashboard').find((r) => r.json.data.uuid === inv.uuid), 10_000, 'dashboard webhook');
    expect(hit.json.type).toBe('invoice.confirming');
    expect(hit.json.data.metadata).toEqual({ k: 'v' });
    expect(verifyStandardWebhook(rotated.webhook_secret, hit.headers, hit.body)).toBe(true);
    expect(verifyStandardWebhook(m.webhookSecret, hit.headers, hit.body)).toBe(false);
    expect(verifyServiceSignature(m.apiSecret, hit.body, hit.headers['x-service-signature'])).toBe(true);
  });
});
