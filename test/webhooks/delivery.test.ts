import { rpc, eventually } from '../support/stack';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher';
import { MerchantsRepo } from '../../src/store/repos/merchants';
import { SecretBox } from '../../src/security/secret-box';
import { loadDaemonKeys } from '../../src/security/key-files';
import { createLogger } from '../../src/observability/logger';
import { OutboxEvent } from '../../src/store/entities';
import { randomUUID } from 'node:crypto';
import { startWebhookStack, createShop, createInvoice, waitInvoice, pay, listWebhooks, type WebhookStack, type Shop } from './stack';
import { makeCert, Receiver, verifyServiceSignature, verifyStandardWebhook, type TestCert } from './support';

describe('webhook delivery', () => {
  let cert: TestCert;
  let receiver: Receiver;
  let stack: WebhookStack;
  let shop: Shop;
  beforeAll(async () => {
    cert = makeCert();
    receiver = await Receiver.start(cert);
    // Polling once a minute: these deliveries can only be this quick through the wake-up on commit.
    stack = await startWebhookStack({ ca: cert.cert, pollMs: 60_000 });
    shop = await createShop(stack, receiver.url('/dashboard'));
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.down();
  });

  it('invoice events arrive once each, in order, signed both ways, with the metadata', async () => {
    const metadata = { order: 'A-1', customer: { id: 7, tags: ['x'] } };
    const inv = await createInvoice(stack, shop, { amount: '12.5', webhook_url: receiver.url('/invoice'), metadata_json: JSON.stringify(metadata) });
    await pay(stack, inv);
    await waitInvoice(stack, shop, inv.uuid, 'confirming');
    await rpc((cb) => stack.clients.devnet.mine({ network: 'TRC20', blocks: inv.required_confirmations }, stack.operator, cb));
    await waitInvoice(stack, shop, inv.uuid, 'paid');

    await eventually(
      async () => {
        const evs = await listWebhooks(stack, { merchant_id: shop.merchantId });
        return evs.length === 2 && evs.every((e) => e.status === 'delivered') ? true : undefined;
      },
      10_000,
      'both events delivered',
    );
    await new Promise((r) => setTimeout(r, 600)); // a duplicate would show up within a few polls
    const got = receiver.at('/invoice');
    expect(got.map((r) => r.json.type)).toEqual(['invoice.confirming', 'invoice.paid']);
    expect(new Set(got.map((r) => r.json.id)).size).toBe(2);
    expect(receiver.at('/dashboard')).toHaveLength(0);
    for (const r of got) {
      expect(r.headers['content-type']).toBe('application/json');
      expect(r.headers['webhook-id']).toBe(r.json.id);
      expect(r.json.id).toMatch(/^evt_[0-9a-f]{24}$/);
      expect(verifyServiceSignature(shop.apiSecret, r.body, r.headers['x-service-signature'])).toBe(true);
      expect(verifyStandardWebhook(shop.webhookSecret, r.headers, r.body)).toBe(true);
      // Tampered body or a wrong secret do not verify.
      expect(verifyServiceSignature(shop.apiSecret, Buffer.concat([r.body, Buffer.from(' ')]), r.headers['x-service-signature'])).toBe(false);
      expect(verifyStandardWebhook(`whsec_${Buffer.alloc(24, 1).toString('base64')}`, r.headers, r.body)).toBe(false);
      expect(Object.keys(r.json)).toEqual(['id', 'type', 'created_at', 'data']);
      expect(r.json.data.uuid).toBe(inv.uuid);
      expect(r.json.data.metadata).toEqual(metadata);
    }
    expect(got[0]!.json.data.status).toBe('confirming');
    expect(got[1]!.json.data.status).toBe('paid');

    const listed = (await listWebhooks(stack, { merchant_id: shop.merchantId })).filter((e) => e.aggregate_id === inv.uuid);
    expect(listed.map((e) => e.type)).toEqual(['invoice.paid', 'invoice.confirming']); // newest first
    for (const e of listed) {
      expect(e).toMatchObject({ status: 'delivered', attempts: 1, target_url: receiver.url('/invoice'), merchant_id: shop.merchantId });
      expect(e.next_attempt_at).toBeUndefined();
      expect(e.deliveries).toHaveLength(1);
      expect(e.deliveries[0]).toMatchObject({ attempt: 1, status_code: 200 });
      expect(e.deliveries[0]!.error).toBeUndefined();
      expect(typeof e.deliveries[0]!.latency_ms).toBe('number');
      expect(e.deliveries[0]!.latency_ms).toBeGreaterThanOrEqual(0);
      expect(Date.parse(e.deliveries[0]!.at)).not.toBeNaN();
    }
  });

  it('an invoice without webhook_url reports to the merchant URL; a rotated webhook secret signs the next event', async () => {
    const rotated = await rpc<{ webhook_secret: string }>((cb) => stack.clients.merchants.rotateWebhookSecret({ merchant_id: shop.merchantId }, stack.operator, cb));
    const inv = await createInvoice(stack, shop, { amount: '3', metadata_json: '{"k":"v"}' });
    await pay(stack, inv);
    const hit = await eventually(async () => receiver.at('/dashboard').find((r) => r.json.data.uuid === inv.uuid), 10_000, 'dashboard webhook');
    expect(hit.json.type).toBe('invoice.confirming');
    expect(hit.json.data.metadata).toEqual({ k: 'v' });
    expect(verifyStandardWebhook(rotated.webhook_secret, hit.headers, hit.body)).toBe(true);
    expect(verifyStandardWebhook(shop.webhookSecret, hit.headers, hit.body)).toBe(false);
    expect(verifyServiceSignature(shop.apiSecret, hit.body, hit.headers['x-service-signature'])).toBe(true);
  });

  it('withdrawal events go to the merchant URL (never an event-level URL)', async () => {
    const em = stack.daemon.orm.em.fork();
    const now = stack.daemon.clock.now();
    const ev = new OutboxEvent(
      'evt_withdrawal00000000000001',
      shop.merchantId,
      'withdrawal',
      randomUUID(),
      'withdrawal.completed',
      '{"id":"evt_withdrawal00000000000001","type":"withdrawal.completed","created_at":"x","data":{}}',
      now,
    );
    ev.targetUrl = receiver.url('/not-here');
    // The payload is the test's own (only the routing is under test), not a daemon's event.
    receiver.openapi = false;
    await em.persistAndFlush(ev);
    const hit = await eventually(async () => receiver.at('/dashboard').find((r) => r.json.type === 'withdrawal.completed'), 10_000, 'withdrawal webhook').finally(() => {
      receiver.openapi = true;
    });
    expect(hit.headers['webhook-id']).toBe('evt_withdrawal00000000000001');
    expect(verifyServiceSignature(shop.apiSecret, hit.body, hit.headers['x-service-signature'])).toBe(true);
    expect(receiver.at('/not-here')).toHaveLength(0);
  });

  it('two dispatchers on one database (two daemons) deliver each event exactly once', async () => {
    // A second dispatcher with its own transactions competes for the same outbox rows.
    const keys = loadDaemonKeys(stack.dataDir, {});
    const other = new WebhookDispatcher({
      orm: stack.daemon.orm,
      logger: createLogger('silent'),
      clock: stack.daemon.clock,
      merchants: new MerchantsRepo(new SecretBox(keys.masterKey)),
      allowPrivateTargets: true,
      ca: cert.cert,
      pollMs: 10,
    });
    other.start();
    try {
      const shop2 = await createShop(stack, receiver.url('/pair'));
      const invoices = await Promise.all(Array.from({ length: 8 }, () => createInvoice(stack, shop2, { amount: '4' })));
      for (const inv of invoices) await pay(stack, inv);
      await eventually(
        async () => {
          const evs = await listWebhooks(stack, { merchant_id: shop2.merchantId });
          return evs.length === 8 && evs.every((e) => e.status === 'delivered') ? true : undefined;
        },
        15_000,
        'eight deliveries',
      );
      await new Promise((r) => setTimeout(r, 300));
      const ids = receiver.at('/pair').map((r) => r.json.id);
      expect(ids).toHaveLength(8);
      expect(new Set(ids).size).toBe(8);
    } finally {
      await other.stop();
    }
  });
});
