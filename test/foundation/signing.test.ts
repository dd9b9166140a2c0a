import { createHmac } from 'node:crypto';
import type { Json } from '../invoices/helpers';
import { startStack, createMerchant, signed, rpc, type Stack, type MerchantCredentials } from '../support/stack';

const sign = (secret: string, body: string): string => createHmac('sha256', secret).update(body).digest('hex');

describe('HMAC-signed REST requests', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const post = (headers: Record<string, string>, body: string) =>
    fetch(`${stack.baseUrl}/v1/invoices`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as Json,
    }));

  it('a correctly signed request passes', async () => {
    const body = '{"amount":"12.5","network":"TON","order_id":"sig-ok"}';
    const res = await post({ 'X-Service-Key': m.apiKey, 'X-Service-Signature': sign(m.apiSecret, body) }, body);
    expect(res.status).toBe(201);
    expect(res.body.amount).toBe('12.5');
  });

  it('signs the raw bytes as sent: odd whitespace and unicode pass', async () => {
    const body = '{ "amount" : "7",\n  "title": "Café ☕ — 東京", "order_id":"sig-raw" }';
    const res = await post({ 'X-Service-Key': m.apiKey, 'X-Service-Signature': sign(m.apiSecret, body) }, body);
    expect(res.status).toBe(201);
    expect(res.body.title).toBe('Café ☕ — 東京');
  });

  it('one changed byte of the body gets 401 and the documented error body; nothing is stored', async () => {
    const body = '{"amount":"10","order_id":"sig-tamper"}';
    const signature = sign(m.apiSecret, body);
    const res = await post({ 'X-Service-Key': m.apiKey, 'X-Service-Signature': signature }, body.replace('10', '90'));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'invalid_signature', message: expect.any(String) } });
    const count = await stack.daemon.orm.em.fork().getConnection().execute(`select count(*)::int as n from invoices where order_id = 'sig-tamper'`);
    expect(count[0].n).toBe(0);
  });

  it('a wrong secret gets 401', async () => {
    const body = '{"amount":"10"}';
    const res = await post({ 'X-Service-Key': m.apiKey, 'X-Service-Signature': sign('sk_wrong', body) }, body);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'invalid_signature', message: expect.any(String) } });
  });

  it.each([
    ['X-Service-Key', 'missing_api_key'],
    ['X-Service-Signature', 'missing_signature'],
  ])('a missing %s header gets 401 %s', async (header, code) => {
    const body = '{"amount":"10"}';
    const headers: Record<string, string> = { 'X-Service-Key': m.apiKey, 'X-Service-Signature': sign(m.apiSecret, body) };
    delete headers[header];
    const res = await post(headers, body);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code, message: expect.any(String) } });
  });

  it('an unknown key gets 401', async () => {
    const body = '{"amount":"10"}';
    const res = await post({ 'X-Service-Key': 'pk_unknown', 'X-Service-Signature': sign(m.apiSecret, body) }, body);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'invalid_api_key', message: expect.any(String) } });
  });

  it('a GET signed over the empty string passes; signed over anything else it fails', async () => {
    const ok = await signed(stack, m, 'GET', '/v1/balance');
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ available: '0', held: '0', currency: 'USDT' });
    const bad = await fetch(`${stack.baseUrl}/v1/balance`, { headers: { 'X-Service-Key': m.apiKey, 'X-Service-Signature': sign(m.apiSecret, '{}') } });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ error: { code: 'invalid_signature', message: expect.any(String) } });
  });

  it('malformed JSON is 400, not JSON is 415, over 64 KiB is 413, unknown route is 404', async () => {
    const bad = '{"amount":';
    expect((await post({ 'X-Service-Key': m.apiKey, 'X-Service-Signature': sign(m.apiSecret, bad) }, bad)).status).toBe(400);
    const r415 = await fetch(`${stack.baseUrl}/v1/invoices`, { method: 'POST', headers: { 'Content-Type': 'text/plain', 'X-Service-Key': m.apiKey, 'X-Service-Signature': 'x' }, body: 'hi' });
    expect(r415.status).toBe(415);
    const big = JSON.stringify({ amount: '10', metadata: { pad: 'x'.repeat(70 * 1024) } });
    expect((await post({ 'X-Service-Key': m.apiKey, 'X-Service-Signature': sign(m.apiSecret, big) }, big)).status).toBe(413);
    const r404 = await fetch(`${stack.baseUrl}/v1/nope`);
    expect(r404.status).toBe(404);
    expect(((await r404.json()) as Json).error.code).toBe('not_found');
  });

  it('a signature replayed with other typed fields over gRPC cannot change the request', async () => {
    // The daemon reads a signed call's body from the signed bytes only.
    const body = '{"amount":"10","order_id":"replay-1","network":"TON"}';
    const grpc = await import('@grpc/grpc-js');
    const md = new grpc.Metadata();
    md.set('x-service-key', m.apiKey);
    md.set('x-service-signature', sign(m.apiSecret, body));
    md.set('x-signed-body-bin', Buffer.from(body));
    const res = await rpc<{ invoice?: { amount: string; order_id?: string } }>((cb) => stack.clients.invoices.createInvoice({ amount: '999999', order_id: 'evil' }, md, cb));
    expect(res.invoice?.amount).toBe('10');
    expect(res.invoice?.order_id).toBe('replay-1');
  });
});
