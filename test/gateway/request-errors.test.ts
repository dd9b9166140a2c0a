import { CreateInvoiceResponse } from '../../src/grpc/generated/chainpay/v1/invoices';
import { invoiceFixture } from './fake-daemon';
import { send, signed, startHarness, type Harness } from './http-client';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
  h.daemon.on('CreateInvoice', () => CreateInvoiceResponse.fromPartial({ invoice: invoiceFixture(), created: true }));
});
afterAll(() => h.stop());
beforeEach(() => h.daemon.calls.splice(0));

const post = (body: Buffer | string, headers: Record<string, string> = signed(body), chunked = false) => send(h.port, { method: 'POST', path: '/v1/invoices', headers, body, chunked });

function expectError(res: { status: number; text: string; headers: Record<string, unknown> }, status: number, text: string) {
  expect(res.status).toBe(status);
  expect(res.text).toBe(text);
  expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  expect(res.headers['x-request-id']).toEqual(expect.any(String));
  expect(h.daemon.calls).toHaveLength(0);
}

describe('refusals before any gRPC call', () => {
  it('415 when Content-Type is missing or not JSON', async () => {
    const body = '{"amount":"1"}';
    const expected = '{"error":{"code":"unsupported_media_type","message":"Content-Type must be application/json"}}';
    const { 'Content-Type': _omit, ...noType } = signed(body);
    expectError(await post(body, noType), 415, expected);
    expectError(await post(body, { ...noType, 'Content-Type': 'text/plain' }), 415, expected);
    expectError(await post(body, { ...noType, 'Content-Type': 'application/json; charset=iso-8859-1' }), 415, expected);
    expectError(await post(body, { ...noType, 'Content-Type': 'application/jsonx' }), 415, expected);
  });

  it('accepts a charset parameter (UTF-8) and any letter case', async () => {
    const body = '{"amount":"1"}';
    for (const type of ['application/json; charset=utf-8', 'Application/JSON;charset="UTF-8"', 'application/json ; charset=utf8']) {
      const res = await post(body, signed(body, { 'Content-Type': type }));
      expect(res.status).toBe(201);
    }
  });

  it('413 when the declared length is over 64 KiB, without reading the body', async () => {
    const body = Buffer.alloc(64 * 1024 + 1, 0x20);
    const res = await post(body);
    expectError(res, 413, '{"error":{"code":"payload_too_large","message":"request body exceeds 65536 bytes"}}');
    expect(res.headers.connection).toBe('close');
  });

  it('413 when a chunked body (no Content-Length) grows past 64 KiB', async () => {
    const body = Buffer.alloc(200 * 1024, 0x20);
    const res = await post(body, signed(body), true);
    expectError(res, 413, '{"error":{"code":"payload_too_large","message":"request body exceeds 65536 bytes"}}');
  });

  it('a body of exactly 64 KiB is accepted', async () => {
    const body = Buffer.from(`{"a":"${'x'.repeat(64 * 1024 - 8)}"}`);
    expect(body.length).toBe(64 * 1024);
    expect((await post(body)).status).toBe(201);
  });

  it.each([
    ['not JSON', '{"amount":', 'request body is not valid JSON'],
    ['empty body', '', 'request body is not valid JSON'],
    ['invalid UTF-8', Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]), 'request body is not valid JSON'],
    ['a UTF-8 BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{}')]), 'request body is not valid JSON'],
    ['an array', '[{"amount":"1"}]', 'request body must be a JSON object'],
    ['a string', '"hello"', 'request body must be a JSON object'],
    ['null', 'null', 'request body must be a JSON object'],
    ['a number', '42', 'request body must be a JSON object'],
  ])('400 malformed_json for %s', async (_name, body, message) => {
    const headers = { ...signed(body), 'Content-Type': 'application/json' };
    expectError(await post(body, headers), 400, `{"error":{"code":"malformed_json","message":"${message}"}}`);
  });

  it.each(['/', '/v1', '/v1/', '/v1/invoices/', '/v1/invoices/x/network/extra', '/v1/nope', '/v2/networks', '/v1/invoices//network'])('404 not_found for %s', async (path) => {
    expectError(await send(h.port, { path, headers: signed('') }), 404, '{"error":{"code":"not_found","message":"no such route"}}');
  });

  it.each([
    ['DELETE', '/v1/invoices', 'POST, GET'],
    ['POST', '/v1/networks', 'GET'],
    ['PUT', '/v1/invoices/abc', 'GET'],
    ['GET', '/v1/invoices/abc/network', 'POST'],
    ['DELETE', '/v1/withdrawals', 'POST, GET'],
    ['GET', '/v1/invoices/abc/cancel', 'POST'],
    ['POST', '/v1/openapi.json', 'GET'],
    ['POST', '/v1/balance', 'GET'],
    ['POST', '/healthz', 'GET'],
  ])('405 for %s %s with Allow: %s', async (method, path, allow) => {
    const res = await send(h.port, { method, path });
    expectError(res, 405, `{"error":{"code":"method_not_allowed","message":"method ${method} is not allowed here"}}`);
    expect(res.headers.allow).toBe(allow);
  });
});
