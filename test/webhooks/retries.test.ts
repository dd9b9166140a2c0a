import { Metadata, status } from '@grpc/grpc-js';
import { rpc, eventually } from '../support/stack';
import { run } from '../../src/cli/main';
import type { WebhookEvent } from '../../src/grpc/generated/chainpay/v1/operator';
import { RETRY_DELAYS_MS } from '../../src/webhooks/retry-schedule';
import { startWebhookStack, createShop, createInvoice, waitInvoice, pay, listWebhooks, advance, type WebhookStack, type Shop } from './stack';
import { makeCert, Receiver, verifyStandardWebhook } from './support';

describe('webhook retries, failure and redelivery', () => {
  let receiver: Receiver;
  let stack: WebhookStack;
  beforeAll(async () => {
    const cert = makeCert();
    receiver = await Receiver.start(cert);
    stack = await startWebhookStack({ ca: cert.cert });
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.down();
  });
  beforeEach(() => {
    receiver.reply = () => ({ status: 200 });
  });

  const eventsOf = async (shop: Shop): Promise<WebhookEvent[]> => (await listWebhooks(stack, { merchant_id: shop.merchantId })).reverse();
  const attemptsSettled = (shop: Shop, type: string, n: number): Promise<WebhookEvent> =>
    eventually(async () => (await eventsOf(shop)).find((e) => e.type === type && e.deliveries.length === n), 10_000, `${type} attempt ${n}`);
  /** A paid invoice (terminal, so advancing the clock adds no expiry events) with two queued events. */
  const paidInvoice = async (shop: Shop): Promise<string> => {
    const inv = await createInvoice(stack, shop, { amount: '5' });
    await pay(stack, inv);
    await waitInvoice(stack, shop, inv.uuid, 'confirming');
    await rpc((cb) => stack.clients.devnet.mine({ network: 'TRC20', blocks: inv.required_confirmations }, stack.operator, cb));
    await waitInvoice(stack, shop, inv.uuid, 'paid');
    return inv.uuid;
  };
  const cli = async (argv: string[]): Promise<{ code: number; out: string }> => {
    let out = '';
    const code = await run([...argv, '--json'], { env: { CHAINPAY_GRPC_ADDR: stack.grpcAddress, DATA_DIR: stack.dataDir }, stdout: { write: (s: string) => void (out += s) }, stderr: { write: (s: string) => void (out += s) } });
    return { code, out };
  };

  it('receiver down, then up: retries follow the schedule on the daemon clock, the later event waits', async () => {
    await receiver.down();
    const shop = await createShop(stack, receiver.url('/b'));
    await paidInvoice(shop);
    let first = await attemptsSettled(shop, 'invoice.confirming', 1);
    expect(first.deliveries[0]!.error).toMatch(/ECONNREFUSED/);
    // Not early: the next attempt waits for the daemon clock, not for wall time.
    await new Promise((r) => setTimeout(r, 700));
    first = (await eventsOf(shop)).find((e) => e.type === 'invoice.confirming')!;
    expect(first.deliveries).toHaveLength(1);
    expect(Date.parse(first.next_attempt_at!) - Date.parse(first.deliveries[0]!.at)).toBe(RETRY_DELAYS_MS[0]);
    // In order per invoice: invoice.paid waits while invoice.confirming is pending.
    expect((await eventsOf(shop)).find((e) => e.type === 'invoice.paid')!.deliveries).toHaveLength(0);

    await advance(stack, 5);
    first = await attemptsSettled(shop, 'invoice.confirming', 2);
    expect(first.deliveries[1]!.error).toMatch(/ECONNREFUSED/);
    expect(Date.parse(first.next_attempt_at!) - Date.parse(first.deliveries[1]!.at)).toBe(RETRY_DELAYS_MS[1]);

    await receiver.up();
    receiver.reply = () => ({ status: 503 });
    await advance(stack, 300);
    first = await attemptsSettled(shop, 'invoice.confirming', 3);
    expect(first.deliveries[2]).toMatchObject({ attempt: 3, status_code: 503, error: 'HTTP 503' });
    expect(Date.parse(first.next_attempt_at!) - Date.parse(first.deliveries[2]!.at)).toBe(RETRY_DELAYS_MS[2]);

    receiver.reply = () => ({ status: 204 });
    await advance(stack, 1800);
    first = await attemptsSettled(shop, 'invoice.confirming', 4);
    expect(first).toMatchObject({ status: 'delivered', attempts: 4 });
    expect(first.deliveries[3]).toMatchObject({ attempt: 4, status_code: 204 });
    // The later event goes right after the earlier one is delivered, and only then.
    await attemptsSettled(shop, 'invoice.paid', 1);
    // The receiver saw the 503 attempt, the delivered one, then the later event.
    const seen = receiver.at('/b');
    expect(seen.map((r) => r.json.type)).toEqual(['invoice.confirming', 'invoice.confirming', 'invoice.paid']);
    expect(seen[0]!.json.id).toBe(seen[1]!.json.id);
    expect(seen[0]!.body.equals(seen[1]!.body)).toBe(true);
  });

  it('after the last attempt the event is failed; the later event then goes; redelivery through gRPC and the CLI', async () => {
    await receiver.down();
    const shop = await createShop(stack, receiver.url('/c'));
    await paidInvoice(shop);
    let ev = await attemptsSettled(shop, 'invoice.confirming', 1);
    for (let i = 0; i < RETRY_DELAYS_MS.length; i++) {
      expect(ev.status).toBe('pending');
      expect(Date.parse(ev.next_attempt_at!) - Date.parse(ev.deliveries[i]!.at)).toBe(RETRY_DELAYS_MS[i]);
      await advance(stack, RETRY_DELAYS_MS[i]! / 1000);
      ev = await attemptsSettled(shop, 'invoice.confirming', i + 2);
    }
    expect(ev).toMatchObject({ status: 'failed', attempts: 8 });
    expect(ev.next_attempt_at).toBeUndefined();
    expect(ev.deliveries.map((d) => d.attempt)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // A failed event no longer holds back the invoice's later event.
    await attemptsSettled(shop, 'invoice.paid', 1);

    await receiver.up();
    const redelivered = await rpc<WebhookEvent>((cb) => stack.clients.operator.redeliverWebhook({ event_id: ev.id }, stack.operator, cb));
    expect(redelivered).toMatchObject({ id: ev.id, status: 'pending', attempts: 0 });
    ev = await attemptsSettled(shop, 'invoice.confirming', 9);
    expect(ev).toMatchObject({ status: 'delivered', attempts: 1 });
    expect(ev.deliveries[8]).toMatchObject({ attempt: 9, status_code: 200 });
    // invoice.paid is still on its schedule (attempt 2 due 5 s later) and goes after confirming.
    await advance(stack, 5);
    await attemptsSettled(shop, 'invoice.paid', 2);
    expect(receiver.at('/c').map((r) => r.json.type)).toEqual(['invoice.confirming', 'invoice.paid']);

    // The CLI: list, then resend a delivered event (same id and body, signed again).
    const listed = await cli(['webhooks', 'list', '--merchant', shop.merchantId]);
    expect(listed.code).toBe(0);
    expect((JSON.parse(listed.out) as { events: WebhookEvent[] }).events.map((e) => e.status)).toEqual(['delivered', 'delivered']);
    const again = await cli(['webhooks', 'redeliver', ev.id]);
    expect(again.code).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ id: ev.id, status: 'pending' });
    await eventually(async () => (receiver.at('/c').length === 3 ? true : undefined), 10_000, 'CLI redelivery');
    const [firstCopy, , secondCopy] = receiver.at('/c');
    expect(secondCopy!.json.id).toBe(ev.id);
    expect(secondCopy!.body.equals(firstCopy!.body)).toBe(true);
    expect(verifyStandardWebhook(shop.webhookSecret, secondCopy!.headers, secondCopy!.body)).toBe(true);

    const audit = await stack.daemon.orm.em.fork().getConnection().execute(`select actor, action, target from audit_log where action = 'webhook.redeliver' and target = ?`, [`webhook_event:${ev.id}`]);
    expect(audit).toEqual([
      { actor: 'operator', action: 'webhook.redeliver', target: `webhook_event:${ev.id}` },
      { actor: 'operator', action: 'webhook.redeliver', target: `webhook_event:${ev.id}` },
    ]);
    expect((await cli(['webhooks', 'redeliver', 'evt_000000000000000000000000'])).code).toBe(1);
  });

  it('no URL at all: failed with "no webhook URL", deliverable once the merchant sets one', async () => {
    const shop = await createShop(stack);
    const inv = await createInvoice(stack, shop, { amount: '2' });
    await pay(stack, inv);
    let ev = await attemptsSettled(shop, 'invoice.confirming', 1);
    expect(ev).toMatchObject({ status: 'failed', attempts: 1 });
    expect(ev.deliveries[0]).toMatchObject({ attempt: 1, error: 'no webhook URL' });
    expect(ev.target_url).toBeUndefined();
    await rpc((cb) => stack.clients.merchants.updateMerchant({ merchant_id: shop.merchantId, webhook_url: receiver.url('/late') }, stack.operator, cb));
    await rpc((cb) => stack.clients.operator.redeliverWebhook({ event_id: ev.id }, stack.operator, cb));
    ev = await attemptsSettled(shop, 'invoice.confirming', 2);
    expect(ev).toMatchObject({ status: 'delivered', target_url: receiver.url('/late') });
    expect(receiver.at('/late')).toHaveLength(1);
  });

  it('operator calls need the operator token and check their input', async () => {
    await expect(rpc((cb) => stack.clients.operator.listWebhooks({ limit: 0 }, new Metadata(), cb))).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
    await expect(rpc((cb) => stack.clients.operator.redeliverWebhook({ event_id: 'evt_x' }, new Metadata(), cb))).rejects.toMatchObject({ code: status.UNAUTHENTICATED });
    await expect(rpc((cb) => stack.clients.operator.listWebhooks({ limit: 0, status: 'bogus' }, stack.operator, cb))).rejects.toMatchObject({ code: status.FAILED_PRECONDITION });
    await expect(rpc((cb) => stack.clients.operator.redeliverWebhook({ event_id: 'evt_nope' }, stack.operator, cb))).rejects.toMatchObject({ code: status.NOT_FOUND });
  });

  it('a 302 is not followed and counts as a failed attempt', async () => {
    receiver.reply = (p) => (p === '/moved' ? { status: 302, headers: { location: receiver.url('/elsewhere') } } : { status: 200 });
    const shop = await createShop(stack, receiver.url('/moved'));
    const inv = await createInvoice(stack, shop, { amount: '2' });
    await pay(stack, inv);
    const ev = await attemptsSettled(shop, 'invoice.confirming', 1);
    expect(ev.status).toBe('pending');
    expect(ev.deliveries[0]).toMatchObject({ status_code: 302, error: 'redirect not followed (HTTP 302)' });
    expect(receiver.at('/moved')).toHaveLength(1);
    expect(receiver.at('/elsewhere')).toHaveLength(0);
  });
});
