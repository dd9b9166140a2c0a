import { Metadata, status } from '@grpc/grpc-js';
import { rpc, eventually } from '../support/stack';
import { run } from '../../src/cli/main';
import type { WebhookEvent } from '../../src/grpc/generated/chainpay/v1/operator';
import { MAX_ATTEMPTS, RETRY_DELAYS_MS } from '../../src/webhooks/retry-schedule';
import { DEFAULT_ATTEMPT_TIMEOUT_MS } from '../../src/webhooks/dispatcher';
import { startWebhookStack, createShop, createInvoice, waitInvoice, pay, listWebhooks, advance, type WebhookStack, type Shop } from './stack';
import { makeCert, Receiver, verifyStandardWebhook } from './support';

/** The documented schedule, written out here (not taken from the code under test): 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
const SCHEDULE_MS = [5e3, 3e5, 1.8e6, 7.2e6, 1.8e7, 3.6e7, 3.6e7];
/** When attempt n+1 may go, counted from attempt 1: the running sums of the schedule. */
const OFFSETS_MS = [0, 5_000, 305_000, 2_105_000, 9_305_000, 27_305_000, 63_305_000, 99_305_000];
/** Wall time that passes between advancing the clock and the attempt (polling, a refused connect). */
const SLACK_MS = 5_000;
const at = (e: WebhookEvent, i: number): number => Date.parse(e.deliveries[i]!.at);

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
    const code = await run([...argv, '--json'], {
      env: { CHAINPAY_GRPC_ADDR: stack.grpcAddress, DATA_DIR: stack.dataDir },
      stdout: { write: (s: string) => void (out += s) },
      stderr: { write: (s: string) => void (out += s) },
    });
    return { code, out };
  };

  it('the schedule is the documented one: 8 attempts over about 28 hours', () => {
    expect(RETRY_DELAYS_MS).toEqual(SCHEDULE_MS);
    expect(MAX_ATTEMPTS).toBe(8);
    expect(SCHEDULE_MS.reduce((a, b) => a + b, 0)).toBe(99_305_000); // 27 h 35 min 5 s
  });

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
    expect(Date.parse(first.next_attempt_at!) - at(first, 0)).toBe(5_000);
    // In order per invoice: invoice.paid waits while invoice.confirming is pending.
    expect((await eventsOf(shop)).find((e) => e.type === 'invoice.paid')!.deliveries).toHaveLength(0);

    await advance(stack, 5);
    first = await attemptsSettled(shop, 'invoice.confirming', 2);
    expect(first.deliveries[1]!.error).toMatch(/ECONNREFUSED/);
    expect(at(first, 1) - at(first, 0)).toBeGreaterThanOrEqual(5_000);
    expect(at(first, 1) - at(first, 0)).toBeLessThan(5_000 + SLACK_MS);
    expect(Date.parse(first.next_attempt_at!) - at(first, 1)).toBe(300_000);

    await receiver.up();
    receiver.reply = () => ({ status: 503 });
    await advance(stack, 300);
    first = await attemptsSettled(shop, 'invoice.confirming', 3);
    expect(first.deliveries[2]).toMatchObject({ attempt: 3, status_code: 503, error: 'HTTP 503' });
    expect(at(first, 2) - at(first, 0)).toBeGreaterThanOrEqual(305_000);
    expect(at(first, 2) - at(first, 0)).toBeLessThan(305_000 + 2 * SLACK_MS);
    expect(Date.parse(first.next_attempt_at!) - at(first, 2)).toBe(1_800_000);

    receiver.reply = () => ({ status: 204 });
    await advance(stack, 1800);
    first = await attemptsSettled(shop, 'invoice.confirming', 4);
    expect(first).toMatchObject({ status: 'delivered', attempts: 4 });
    expect(first.deliveries[3]).toMatchObject({ attempt: 4, status_code: 204 });
    expect(at(first, 3) - at(first, 0)).toBeGreaterThanOrEqual(2_105_000);
    expect(at(first, 3) - at(first, 0)).toBeLessThan(2_105_000 + 3 * SLACK_MS);
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
    const advanceSeconds = [5, 300, 1_800, 7_200, 18_000, 36_000, 36_000];
    for (let i = 0; i < advanceSeconds.length; i++) {
      expect(ev.status).toBe('pending');
      expect(Date.parse(ev.next_attempt_at!) - at(ev, i)).toBe(SCHEDULE_MS[i]);
      await advance(stack, advanceSeconds[i]!);
      ev = await attemptsSettled(shop, 'invoice.confirming', i + 2);
    }
    // Each attempt went when its retry fell due on the daemon clock: never early, and only as late as polling makes it.
    for (let i = 0; i < OFFSETS_MS.length; i++) {
      expect(at(ev, i) - at(ev, 0)).toBeGreaterThanOrEqual(OFFSETS_MS[i]!);
      expect(at(ev, i) - at(ev, 0)).toBeLessThan(OFFSETS_MS[i]! + (i + 1) * SLACK_MS);
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

    const audit = await stack.daemon.orm.em
      .fork()
      .getConnection()
      .execute(`select actor, action, target from audit_log where action = 'webhook.redeliver' and target = ?`, [`webhook_event:${ev.id}`]);
    // The actor is the operator (the CLI may add the operator's name: `operator:<name>`).
    expect(audit).toEqual([
      { actor: expect.stringMatching(/^operator\b/), action: 'webhook.redeliver', target: `webhook_event:${ev.id}` },
      { actor: expect.stringMatching(/^operator\b/), action: 'webhook.redeliver', target: `webhook_event:${ev.id}` },
    ]);
    expect((await cli(['webhooks', 'redeliver', 'evt_000000000000000000000000'])).code).toBe(1);
  });

  it('no URL at all: kept as unaddressed (no attempt, not failed), deliverable once the merchant sets one', async () => {
    const shop = await createShop(stack);
    const inv = await createInvoice(stack, shop, { amount: '2' });
    await pay(stack, inv);
    let ev = await eventually(async () => (await eventsOf(shop)).find((e) => e.type === 'invoice.confirming' && e.status === 'unaddressed'), 10_000, 'invoice.confirming kept');
    expect(ev).toMatchObject({ status: 'unaddressed', attempts: 0, deliveries: [] });
    expect(ev.target_url).toBeUndefined();
    await rpc((cb) => stack.clients.merchants.updateMerchant({ merchant_id: shop.merchantId, webhook_url: receiver.url('/late') }, stack.operator, cb));
    await rpc((cb) => stack.clients.operator.redeliverWebhook({ event_id: ev.id }, stack.operator, cb));
    ev = await attemptsSettled(shop, 'invoice.confirming', 1);
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

  it('an endpoint that never answers: the daemon gives up on the attempt after 15 s (the default) and retries', async () => {
    expect(DEFAULT_ATTEMPT_TIMEOUT_MS).toBe(15_000);
    receiver.reply = (p) => (p === '/hang' ? 'hang' : { status: 200 });
    const shop = await createShop(stack, receiver.url('/hang'));
    const inv = await createInvoice(stack, shop, { amount: '2' });
    await pay(stack, inv);
    await eventually(async () => receiver.at('/hang')[0], 10_000, 'the request at the receiver');
    // Still waiting well past any short timeout...
    await new Promise((r) => setTimeout(r, 13_000));
    expect((await eventsOf(shop))[0]!.deliveries).toHaveLength(0);
    // ...and given up at 15 s.
    const ev = await eventually(async () => (await eventsOf(shop)).find((e) => e.deliveries.length === 1), 10_000, 'the timed-out attempt');
    expect(ev.status).toBe('pending');
    expect(ev.deliveries[0]).toMatchObject({ attempt: 1, error: 'timed out after 15000 ms' });
    expect(ev.deliveries[0]!.status_code).toBeUndefined();
    expect(ev.deliveries[0]!.latency_ms).toBeGreaterThanOrEqual(15_000);
    expect(ev.deliveries[0]!.latency_ms).toBeLessThan(17_000);
    expect(Date.parse(ev.next_attempt_at!) - Date.parse(ev.deliveries[0]!.at)).toBe(5_000);
  }, 40_000);
});
