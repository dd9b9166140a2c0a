import { createHmac, randomBytes } from 'node:crypto';
import { CreateInvoiceResponse } from '../../src/grpc/generated/chainpay/v1/invoices';
import { Balance } from '../../src/grpc/generated/chainpay/v1/merchants';
import { FakeDaemon, invoiceFixture } from './fake-daemon';
import { API_KEY, API_SECRET, send, signed, startHarness, type Harness } from './http-client';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  // Verifies like the daemon will: HMAC over the concatenated signed-body values.
  const verify = (md: import('@grpc/grpc-js').Metadata) => {
    const body = FakeDaemon.signedBody(md);
    const expected = createHmac('sha256', API_SECRET).update(body).digest('hex');
    if (md.get('x-service-signature')[0] !== expected) throw new Error('bad signature');
  };
  h.daemon
    .on('CreateInvoice', (_req, md) => {
      verify(md);
      return CreateInvoiceResponse.fromPartial({ invoice: invoiceFixture(), created: true });
    })
    .on('GetInvoice', (_req, md) => (verify(md), invoiceFixture()))
    .on('SetInvoiceNetwork', (_req, md) => (verify(md), invoiceFixture({ network: 'TON' })))
    .on('GetBalance', (_req, md) => (verify(md), Balance.fromPartial({ available: '1', held: '0', currency: 'USDT' })));
});
afterAll(() => h.stop());
beforeEach(() => h.daemon.calls.splice(0));

describe('signed requests are forwarded, never verified, by the gateway', () => {
  it('forwards key, signature and the body bytes exactly as received (unicode, odd whitespace)', async () => {
    const body = Buffer.from('\t{ "amount" :"10.5",\r\n  "title":"Café ☕ — 日本語 \\u00e9 😀" ,"metadata":{ "a" : [ 1 , 2 ] } }\n\n  ', 'utf8');
    const res = await send(h.port, { method: 'POST', path: '/v1/invoices', headers: signed(body), body });
    expect(res.status).toBe(201);
    expect(h.daemon.calls).toHaveLength(1);
    const { metadata, request } = h.daemon.calls[0]!;
    expect(metadata.get('x-service-key')).toEqual([API_KEY]);
    expect(metadata.get('x-service-signature')).toEqual([signed(body)['X-Service-Signature']]);
    expect(FakeDaemon.signedBody(metadata).equals(body)).toBe(true);
    // Only path parameters travel in the message: the create request is empty.
    expect(request).toEqual({ amount: '' });
  });

  it('forwards a 64 KiB body of arbitrary bytes intact (split over several metadata values)', async () => {
    const filler = randomBytes(48 * 1024).toString('base64'); // 65 536 characters
    const prefix = '{"p":"';
    const body = Buffer.from(`${prefix + filler.slice(0, 64 * 1024 - prefix.length - 2)}"}`, 'utf8');
    expect(body.length).toBe(64 * 1024);
    const res = await send(h.port, { method: 'POST', path: '/v1/invoices', headers: signed(body), body });
    expect(res.status).toBe(201);
    const md = h.daemon.calls[0]!.metadata;
    expect(md.get('x-signed-body-bin').length).toBeGreaterThan(1);
    expect(FakeDaemon.signedBody(md).equals(body)).toBe(true);
  });

  it('a GET sends an empty signed body and the path parameter in the message', async () => {
    const uuid = '0b9f5a52-5d3c-4c43-9a43-3f0c7f4b8a11';
    const res = await send(h.port, { path: `/v1/invoices/${uuid}?ignored=1`, headers: signed('') });
    expect(res.status).toBe(200);
    const { metadata, request, method } = h.daemon.calls[0]!;
    expect(method).toBe('GetInvoice');
    expect(request).toEqual({ uuid });
    expect(metadata.get('x-signed-body-bin')).toEqual([Buffer.alloc(0)]);
  });

  it('a body sent with a GET is not forwarded (the signed text of a GET is empty)', async () => {
    const res = await send(h.port, { path: '/v1/balance', headers: signed(''), body: '{"merchant_id":"other"}' });
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ available: '1', held: '0', currency: 'USDT' });
    expect(FakeDaemon.signedBody(h.daemon.calls[0]!.metadata).length).toBe(0);
    expect(h.daemon.calls[0]!.request).toEqual({ merchant_id: '' });
  });

  it('POST /v1/invoices/{uuid}/network carries only the uuid; the network is in the signed body', async () => {
    const body = '{"network":"TON"}';
    const res = await send(h.port, { method: 'POST', path: '/v1/invoices/abc%2Ddef/network', headers: signed(body), body });
    expect(res.status).toBe(200);
    expect(h.daemon.calls[0]!.request).toEqual({ uuid: 'abc-def', network: '' });
    expect(FakeDaemon.signedBody(h.daemon.calls[0]!.metadata).toString()).toBe(body);
  });

  it('generates an X-Request-Id, returns it and forwards it; a sane incoming one is kept', async () => {
    const first = await send(h.port, { path: '/v1/balance', headers: signed('') });
    const id = first.headers['x-request-id'];
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(h.daemon.calls[0]!.metadata.get('x-request-id')).toEqual([id]);
    const second = await send(h.port, { path: '/v1/balance', headers: signed('', { 'X-Request-Id': 'lb-42.abc' }) });
    expect(second.headers['x-request-id']).toBe('lb-42.abc');
    expect(h.daemon.calls[1]!.metadata.get('x-request-id')).toEqual(['lb-42.abc']);
    const third = await send(h.port, { path: '/v1/balance', headers: signed('', { 'X-Request-Id': 'bad id with spaces' }) });
    expect(third.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('missing credentials are refused by the gateway itself', () => {
  const body = '{"amount":"10"}';
  const cases: Array<[string, Record<string, string>, string]> = [
    ['no X-Service-Key', { 'X-Service-Signature': 'ab', 'Content-Type': 'application/json' }, '{"error":{"code":"missing_api_key","message":"X-Service-Key header is required"}}'],
    [
      'empty X-Service-Key',
      { 'X-Service-Key': '', 'X-Service-Signature': 'ab', 'Content-Type': 'application/json' },
      '{"error":{"code":"missing_api_key","message":"X-Service-Key header is required"}}',
    ],
    ['no X-Service-Signature', { 'X-Service-Key': API_KEY, 'Content-Type': 'application/json' }, '{"error":{"code":"missing_signature","message":"X-Service-Signature header is required"}}'],
    ['neither', { 'Content-Type': 'application/json' }, '{"error":{"code":"missing_api_key","message":"X-Service-Key header is required"}}'],
  ];
  it.each(cases)('POST with %s -> 401 without calling the daemon', async (_name, headers, expected) => {
    const res = await send(h.port, { method: 'POST', path: '/v1/invoices', headers, body });
    expect(res.status).toBe(401);
    expect(res.text).toBe(expected);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(h.daemon.calls).toHaveLength(0);
  });

  it.each(['/v1/invoices/x', '/v1/withdrawals/x', '/v1/balance'])('GET %s without headers -> 401', async (path) => {
    const res = await send(h.port, { path });
    expect(res.status).toBe(401);
    expect(res.json().error.code).toBe('missing_api_key');
    const noSig = await send(h.port, { path, headers: { 'X-Service-Key': API_KEY } });
    expect(noSig.json().error.code).toBe('missing_signature');
    expect(h.daemon.calls).toHaveLength(0);
  });

  it('refuses a header that cannot be gRPC metadata (non-ASCII) with 401', async () => {
    const res = await send(h.port, { path: '/v1/balance', headers: { 'X-Service-Key': Buffer.from('kéy', 'latin1').toString('latin1'), 'X-Service-Signature': 'ab' } });
    expect(res.status).toBe(401);
    expect(res.json().error.code).toBe('invalid_api_key');
    expect(h.daemon.calls).toHaveLength(0);
  });
});
