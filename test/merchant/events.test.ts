import { startStack, createMerchant, eventually, rpc, signed, type Stack, type MerchantCredentials, type SignedResponse } from '../support/stack';
import { assertMatchesOpenApi } from '../support/openapi';
import type { ListAuditResponse } from '../../src/grpc/generated/chainpay/v1/operator';
import { encodeEventCursor } from '../../src/domain/event-log-query';
import { makeCert, Receiver, verifyServiceSignature, verifyStandardWebhook } from '../webhooks/support';

type Body = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** GET /v1/events, POST /v1/events/{id}/redeliver and POST /v1/webhooks/test through the gateway. */
describe('merchant event log, redelivery and test ping', () => {
  let stack: Stack;
  let receiver: Receiver;
  /** With a webhook URL. */
  let m: MerchantCredentials;
  /** Another merchant with a URL. */
  let other: MerchantCredentials;
  /** No webhook URL: polls. */
  let polling: MerchantCredentials;

  beforeAll(async () => {
    const cert = makeCert();
    receiver = await Receiver.start(cert);
    stack = await startStack({ daemon: { webhooks: { ca: cert.cert } } });
    m = await createMerchant(stack, { webhook_url: receiver.url('/m') });
    other = await createMerchant(stack, { webhook_url: receiver.url('/other') });
    polling = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver?.down();
  });

  async function call(creds: MerchantCredentials, method: string, target: string, body?: unknown): Promise<SignedResponse> {
    const res = await signed(stack, creds, method, target, body);
    assertMatchesOpenApi(method, target, res.status, res.body);
    return res;
  }

  /** An invoice paid on devnet: its `invoice.confirming` event is written. */
  async function paidInvoice(creds: MerchantCredentials): Promise<string> {
    const inv = (await call(creds, 'POST', '/v1/invoices', { amount: '7', network: 'TRC20' })).body;
    await rpc((cb) => stack.clients.devnet.pay({ network: 'TRC20', to: inv.address, amount: inv.pay_amount }, stack.operator, cb));
    return inv.uuid;
  }

  /** The merchant's whole log, page after page. */
  async function log(creds: MerchantCredentials, limit = 2): Promise<Body[]> {
    const events: Body[] = [];
    let after = '';
    for (;;) {
      const res = await call(creds, 'GET', `/v1/events?limit=${limit}${after ? `&after=${after}` : ''}`);
      expect(res.status).toBe(200);
      events.push(...res.body.events);
      after = res.body.next_cursor;
      if (!res.body.has_more) return events;
    }
  }

  const waitLog = (creds: MerchantCredentials, n: number): Promise<Body[]> =>
    eventually(
      async () => {
        const events = await log(creds);
        return events.length >= n ? events : undefined;
      },
      10_000,
      `${n} events in the log`,
    );

  it('each merchant reads only its own events; a merchant without a webhook URL has its log too', async () => {
    const mine = await paidInvoice(m);
    const theirs = await paidInvoice(other);
    const polled = await paidInvoice(polling);
    const [a, b, c] = await Promise.all([waitLog(m, 1), waitLog(other, 1), waitLog(polling, 1)]);
    expect(a.map((e) => [e.type, e.data.uuid])).toEqual([['invoice.confirming', mine]]);
    expect(b.map((e) => [e.type, e.data.uuid])).toEqual([['invoice.confirming', theirs]]);
    expect(c.map((e) => [e.type, e.data.uuid])).toEqual([['invoice.confirming', polled]]);
    // The same event ids as the outbox (and the webhooks).
    const ids = await stack.daemon.orm.em.fork().execute<{ id: string; status: string }[]>('select id, status from outbox_events where aggregate_id = ?', [polled]);
    expect(ids.map((r) => r.id)).toEqual([c[0].id]);
    await eventually(async () =>
      (await stack.daemon.orm.em.fork().execute<{ status: string }[]>('select status from outbox_events where id = ?', [c[0].id]))[0]?.status === 'unaddressed' ? true : undefined,
    );
  });

  it('an empty page keeps the cursor; a fresh reader starts at the start cursor', async () => {
    const fresh = await createMerchant(stack);
    const first = await call(fresh, 'GET', '/v1/events');
    expect(first.body).toEqual({ events: [], next_cursor: encodeEventCursor({ txId: '0', seq: '0' }), has_more: false });
    const all = await log(m, 100);
    const res = await call(m, 'GET', '/v1/events?limit=100');
    const end = res.body.next_cursor;
    expect(res.body.events.length).toBe(all.length);
    const again = await call(m, 'GET', `/v1/events?after=${end}`);
    expect(again.body).toEqual({ events: [], next_cursor: end, has_more: false });
  });

  it.each([
    ['after=nonsense', 'invalid_cursor', 'after'],
    ['after=', 'invalid_cursor', 'after'],
    [`after=${Buffer.from('e1.1.x').toString('base64url')}`, 'invalid_cursor', 'after'],
    [`after=${Buffer.from('e1.01.2').toString('base64url')}`, 'invalid_cursor', 'after'],
    [`after=${encodeEventCursor({ txId: '5', seq: '7' })}=`, 'invalid_cursor', 'after'],
    [`after=${encodeEventCursor({ txId: '1', seq: '1' })}&after=${encodeEventCursor({ txId: '1', seq: '1' })}`, 'invalid_cursor', 'after'],
    ['limit=0', 'invalid_limit', 'limit'],
    ['limit=101', 'invalid_limit', 'limit'],
    ['limit=abc', 'invalid_limit', 'limit'],
    ['limit=-1', 'invalid_limit', 'limit'],
    ['cursor=x', 'unknown_field', 'cursor'],
  ])('GET /v1/events?%s -> 422 %s', async (query, code, field) => {
    const res = await call(m, 'GET', `/v1/events?${query}`);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code, field });
  });

  it('a valid cursor of ours from far ahead and limit=100 are accepted', async () => {
    const res = await call(m, 'GET', `/v1/events?limit=100&after=${encodeEventCursor({ txId: '18446744073709551615', seq: '1' })}`);
    expect(res.status).toBe(200);
    expect(res.body.events).toEqual([]);
  });

  it('redeliver: 202, the same bytes delivered again, audited; 404 for another merchant or an unknown id; 409 without a URL', async () => {
    const [event] = await waitLog(m, 1);
    const firsts = await eventually(async () => {
      const got = receiver.at('/m').filter((q) => q.json.id === event.id);
      return got.length === 1 ? got : undefined;
    });
    const res = await call(m, 'POST', `/v1/events/${event.id}/redeliver`, {});
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ id: event.id, type: 'invoice.confirming', status: 'pending' });
    const both = await eventually(async () => {
      const got = receiver.at('/m').filter((q) => q.json.id === event.id);
      return got.length === 2 ? got : undefined;
    });
    expect(both[1]!.body.equals(firsts[0]!.body)).toBe(true);
    const audit = await rpc<ListAuditResponse>((cb) => stack.clients.operator.listAudit({ limit: 20 }, stack.operator, cb));
    expect(audit.entries.find((e) => e.target === `webhook_event:${event.id}`)).toMatchObject({ action: 'webhook.redeliver', actor: `merchant:${m.merchantId}` });

    // Another merchant's event is not found (it does not exist for them); so is an unknown or malformed id.
    for (const id of [event.id, 'evt_000000000000000000000000', 'nonsense']) {
      const refused = await call(other, 'POST', `/v1/events/${id}/redeliver`, {});
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe('event_not_found');
    }
    // No URL anywhere: 409, and the event stays as it was.
    const [kept] = await waitLog(polling, 1);
    const noUrl = await call(polling, 'POST', `/v1/events/${kept.id}/redeliver`, {});
    expect(noUrl.status).toBe(409);
    expect(noUrl.body.error.code).toBe('webhook_url_not_set');
    const row = await stack.daemon.orm.em.fork().execute<{ status: string }[]>('select status from outbox_events where id = ?', [kept.id]);
    expect(row[0]!.status).toBe('unaddressed');
    // Strict body.
    const extra = await call(m, 'POST', `/v1/events/${event.id}/redeliver`, { now: true });
    expect(extra.status).toBe(422);
    expect(extra.body.error).toMatchObject({ code: 'unknown_field', field: 'now' });
  });

  it('test ping: signed like a real webhook, the outcome returned, nothing written to the outbox or the log', async () => {
    const outboxBefore = await stack.daemon.orm.em.fork().execute<{ n: string }[]>('select count(*)::text as n from outbox_events');
    const logBefore = await log(m, 100);
    const res = await call(m, 'POST', '/v1/webhooks/test', {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ delivered: true, url: receiver.url('/m'), status_code: 200, error: null, event: { type: 'ping', data: { merchant_id: m.merchantId } } });
    expect(res.body.latency_ms).toBeGreaterThanOrEqual(0);
    expect(res.body.event.id).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(Object.keys(res.body.event)).toEqual(['id', 'type', 'created_at', 'data']);
    const got = receiver.at('/m').filter((q) => q.json.id === res.body.event.id);
    expect(got).toHaveLength(1);
    // The body in the answer is the very bytes received, and both signatures verify.
    expect(res.text.endsWith(`,"event":${got[0]!.body.toString('utf8')}}`)).toBe(true);
    expect(got[0]!.headers['webhook-id']).toBe(res.body.event.id);
    expect(verifyServiceSignature(m.apiSecret, got[0]!.body, got[0]!.headers['x-service-signature'])).toBe(true);
    expect(verifyStandardWebhook(m.webhookSecret, got[0]!.headers, got[0]!.body)).toBe(true);
    expect(verifyServiceSignature(other.apiSecret, got[0]!.body, got[0]!.headers['x-service-signature'])).toBe(false);

    expect(await stack.daemon.orm.em.fork().execute<{ n: string }[]>('select count(*)::text as n from outbox_events')).toEqual(outboxBefore);
    expect(await log(m, 100)).toEqual(logBefore);

    // A failing endpoint is an outcome, not an error.
    receiver.reply = (p) => (p === '/m' ? { status: 503 } : { status: 200 });
    try {
      const failed = await call(m, 'POST', '/v1/webhooks/test', {});
      expect(failed.status).toBe(200);
      expect(failed.body).toMatchObject({ delivered: false, status_code: 503, error: 'HTTP 503' });
    } finally {
      receiver.reply = () => ({ status: 200 });
    }
  });

  it('test ping without a webhook URL: 409 webhook_url_not_set; a body field: 422', async () => {
    const res = await call(polling, 'POST', '/v1/webhooks/test', {});
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('webhook_url_not_set');
    const extra = await call(m, 'POST', '/v1/webhooks/test', { url: 'https://example.com' });
    expect(extra.status).toBe(422);
    expect(extra.body.error).toMatchObject({ code: 'unknown_field', field: 'url' });
  });
});
