import { eventually } from '../support/stack';
import type { WebhookEvent } from '../../src/grpc/generated/chainpay/v1/operator';
import { startWebhookStack, createShop, createInvoice, waitInvoice, pay, listWebhooks, type WebhookStack } from './stack';
import { captureLogger, makeCert, Receiver, type LogLine } from './support';

/**
 * Every other daemon test lifts the guard (WEBHOOK_ALLOW_PRIVATE_TARGETS=1) to reach its local
 * receiver. Here it is on, as in production: the same local receiver must never be reached.
 */
describe('the webhook address guard inside a running daemon (flag not set)', () => {
  let receiver: Receiver;
  let stack: WebhookStack;
  let lines: LogLine[];
  /**
   * receiver.test resolves to nothing while the merchant's URL is submitted (a literal 127.0.0.1, or
   * a name resolving only to it then, is refused at submission: test/gateway/hostile-input.test.ts),
   * and to 127.0.0.1 once it rebinds: the guard at delivery must still refuse it.
   */
  let rebound = false;
  const resolver = async (host: string) => (rebound && host === 'receiver.test' ? [{ address: '127.0.0.1', family: 4 as const }] : []);
  const url = (p: string): string => receiver.url(p).replace('127.0.0.1', 'receiver.test');
  beforeAll(async () => {
    const cert = makeCert();
    receiver = await Receiver.start(cert);
    const captured = captureLogger();
    lines = captured.lines;
    // The receiver's CA is trusted: only the guard can stop the delivery.
    stack = await startWebhookStack({ ca: cert.cert, resolver }, { WEBHOOK_ALLOW_PRIVATE_TARGETS: '0' }, captured.logger);
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.down();
  });

  it('a merchant URL whose name rebinds to 127.0.0.1 after submission: the attempt is refused (loopback), logged, retried later; the receiver gets nothing', async () => {
    expect(lines.some((l) => String(l.msg).includes('WEBHOOK_ALLOW_PRIVATE_TARGETS'))).toBe(false);
    const shop = await createShop(stack, url('/guarded'));
    rebound = true;
    const inv = await createInvoice(stack, shop, { amount: '6' });
    await pay(stack, inv);
    await waitInvoice(stack, shop, inv.uuid, 'confirming');

    const ev: WebhookEvent = await eventually(async () => (await listWebhooks(stack, { merchant_id: shop.merchantId })).find((e) => e.deliveries.length === 1), 10_000, 'the first attempt');
    expect(ev).toMatchObject({ type: 'invoice.confirming', aggregate_id: inv.uuid, status: 'pending', attempts: 1, target_url: url('/guarded') });
    expect(ev.deliveries[0]).toMatchObject({ attempt: 1, error: 'address 127.0.0.1 refused: loopback' });
    expect(ev.deliveries[0]!.status_code).toBeUndefined();
    expect(typeof ev.deliveries[0]!.latency_ms).toBe('number');
    expect(ev.deliveries[0]!.latency_ms).toBeGreaterThanOrEqual(0);
    // Refused is retried on the schedule (the address may be fixed), not failed for good.
    expect(Date.parse(ev.next_attempt_at!) - Date.parse(ev.deliveries[0]!.at)).toBe(5_000);

    await new Promise((r) => setTimeout(r, 600));
    expect(receiver.requests).toHaveLength(0);
    expect(receiver.connections).toBe(0);

    // The structured log line names the event, its merchant and its invoice.
    const logged = lines.filter((l) => l.msg === 'webhook attempt failed' && l.eventId === ev.id);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({
      level: 40,
      component: 'webhooks',
      eventId: ev.id,
      type: 'invoice.confirming',
      merchantId: shop.merchantId,
      invoiceUuid: inv.uuid,
      attempt: 1,
      status: 'pending',
      statusCode: null,
      error: 'address 127.0.0.1 refused: loopback',
    });
    expect(logged[0]!.withdrawalUuid).toBeUndefined();
  });
});
