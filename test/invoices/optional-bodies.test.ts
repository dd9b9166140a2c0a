import { createHmac } from 'node:crypto';
import { send, type RawResponse } from '../gateway/http-client';
import { startStack, createMerchant, signed, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice, count } from './helpers';

/**
 * POSTs whose body is optional (cancel, the test ping, redelivery) accept a request with no body and
 * no Content-Type, the natural first try (`curl -X POST`): only a request with content sends a
 * Content-Type (issue 51). A body, when there is one, must still be an `application/json` object.
 * Real daemon and gateway; every answer is checked against the OpenAPI document by `send`.
 */
describe('POST with an optional body: no body needs no Content-Type', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  let port: number;
  beforeAll(async () => {
    stack = await startStack();
    // Nothing listens on port 9: the ping is answered (delivered: false), which is all this needs.
    m = await createMerchant(stack, { webhook_url: 'https://127.0.0.1:9/hooks' });
    port = Number(new URL(stack.baseUrl).port);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** A signed POST with exactly these bytes and headers: no Content-Type unless given. */
  function post(path: string, body: string | undefined, extra: Record<string, string> = {}): Promise<RawResponse> {
    const signature = createHmac('sha256', m.apiSecret)
      .update(body ?? '')
      .digest('hex');
    return send(port, { method: 'POST', path, headers: { 'X-Service-Key': m.apiKey, 'X-Service-Signature': signature, ...extra }, body });
  }

  it('cancel: no body, no Content-Type (no Content-Length either, or Content-Length: 0) -> 200 canceled', async () => {
    const a = await createInvoice(stack, m, { amount: '5' });
    // node:http sends a POST without a body with neither Content-Length nor Transfer-Encoding.
    const res = await post(`/v1/invoices/${a.uuid}/cancel`, undefined);
    expect({ status: res.status, text: res.status === 200 ? '' : res.text }).toEqual({ status: 200, text: '' });
    expect(res.json()).toMatchObject({ uuid: a.uuid, status: 'canceled' });

    const b = await createInvoice(stack, m, { amount: '5' });
    const withLength = await post(`/v1/invoices/${b.uuid}/cancel`, '');
    expect(withLength.status).toBe(200);
    expect(withLength.json().status).toBe('canceled');
    // The empty body with Content-Type: application/json reads as `{}` too.
    const c = await createInvoice(stack, m, { amount: '5' });
    expect((await post(`/v1/invoices/${c.uuid}/cancel`, '', { 'Content-Type': 'application/json' })).status).toBe(200);
    expect(await count(stack, "select count(*) as n from outbox_events where type = 'invoice.canceled'")).toBe(3);
  });

  it('the test ping and redelivery: no body, no Content-Type -> 200 and 202', async () => {
    const ping = await post('/v1/webhooks/test', undefined);
    expect(ping.status).toBe(200);
    expect(ping.json()).toMatchObject({ delivered: false, url: 'https://127.0.0.1:9/hooks' });

    const inv = await createInvoice(stack, m, { amount: '5' });
    await post(`/v1/invoices/${inv.uuid}/cancel`, undefined);
    const events = (await signed(stack, m, 'GET', '/v1/events?limit=100')).body.events as { id: string; type: string }[];
    const canceled = events.find((e) => e.type === 'invoice.canceled');
    expect(canceled).toBeDefined();
    const redeliver = await post(`/v1/events/${canceled!.id}/redeliver`, undefined);
    expect(redeliver.status).toBe(202);
    expect(redeliver.json()).toMatchObject({ id: canceled!.id, status: 'pending' });
  });

  it('a body still needs Content-Type: application/json (415), and must be a JSON object (400); nothing changes', async () => {
    const inv = await createInvoice(stack, m, { amount: '5' });
    const refused = await post(`/v1/invoices/${inv.uuid}/cancel`, '{}');
    expect(refused.status).toBe(415);
    expect(refused.json().error.code).toBe('unsupported_media_type');
    const wrongType = await post(`/v1/invoices/${inv.uuid}/cancel`, '', { 'Content-Type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    const notObject = await post(`/v1/invoices/${inv.uuid}/cancel`, '[]', { 'Content-Type': 'application/json' });
    expect(notObject.status).toBe(400);
    expect(notObject.json().error.code).toBe('malformed_json');
    expect((await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body.status).toBe('pending');
    // With the header, `{}` is the documented body and still works.
    expect((await post(`/v1/invoices/${inv.uuid}/cancel`, '{}', { 'Content-Type': 'application/json' })).status).toBe(200);
  });

  it('a body is still required where it has a required field: creating an invoice without one is 415', async () => {
    const before = await count(stack, 'select count(*) as n from invoices');
    const res = await post('/v1/invoices', undefined);
    expect(res.status).toBe(415);
    expect(await count(stack, 'select count(*) as n from invoices')).toBe(before);
  });
});
