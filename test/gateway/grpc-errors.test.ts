import { status } from '@grpc/grpc-js';
import pino from 'pino';
import { Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { invoiceFixture, StatusError } from './fake-daemon';
import { send, signed, startHarness, type Harness } from './http-client';

let h: Harness;
let next: () => unknown;
const logLines: any[] = [];
beforeAll(async () => {
  const logger = pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) });
  h = await startHarness({ grpcDeadlineMs: 300, logger });
  h.daemon.on('GetInvoice', () => next());
  // One answered call first: the gateway's first call also opens its channel to the daemon, which
  // under a loaded full run took longer than the 300 ms deadline these tests keep short (a 504
  // instead of the status under test).
  // Under load even that first call can miss the deadline, so it is retried until the channel is up.
  next = () => Invoice.fromPartial(invoiceFixture());
  let warm = await get();
  for (let attempt = 0; warm.status !== 200 && attempt < 20; attempt++) warm = await get();
  expect(warm.status).toBe(200);
});
afterAll(() => h.stop());

/**
 * `openapi: false` where the fake daemon answers what the real one never does (one code on every
 * status, a status without a code): those test the gateway's mapping table, not the REST contract.
 */
const get = (openapi = true) => send(h.port, { path: '/v1/invoices/0b9f5a52-5d3c-4c43-9a43-3f0c7f4b8a11', headers: signed(''), openapi });

describe('daemon gRPC status -> HTTP status and error body', () => {
  it.each([
    [status.INVALID_ARGUMENT, 400],
    [status.UNAUTHENTICATED, 401],
    [status.PERMISSION_DENIED, 403],
    [status.NOT_FOUND, 404],
    [status.ABORTED, 409],
    [status.ALREADY_EXISTS, 409],
    [status.FAILED_PRECONDITION, 422],
    [status.OUT_OF_RANGE, 422],
    [status.UNIMPLEMENTED, 501],
    [status.UNAVAILABLE, 503],
  ])('gRPC %i -> HTTP %i with the daemon code, message and field', async (code, http) => {
    next = () => {
      throw new StatusError(code, 'amount is below the network minimum', { 'chainpay-error-code': 'amount_below_minimum', 'chainpay-error-field': 'amount' });
    };
    const res = await get(false);
    expect(res.status).toBe(http);
    expect(res.text).toBe('{"error":{"code":"amount_below_minimum","message":"amount is below the network minimum","field":"amount"}}');
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('omits field when the daemon names none', async () => {
    next = () => {
      throw new StatusError(status.NOT_FOUND, 'invoice not found', { 'chainpay-error-code': 'invoice_not_found' });
    };
    const res = await get();
    expect(res.status).toBe(404);
    expect(res.text).toBe('{"error":{"code":"invoice_not_found","message":"invoice not found"}}');
  });

  it('uses a fixed code and message when the daemon named no code (details may be internal)', async () => {
    next = () => {
      throw new StatusError(status.FAILED_PRECONDITION, 'pool exhausted at 10.0.0.7');
    };
    const res = await get(false);
    expect(res.status).toBe(422);
    expect(res.text).toBe('{"error":{"code":"failed_precondition","message":"request cannot be processed"}}');
  });

  it('RESOURCE_EXHAUSTED -> 429 with Retry-After from the daemon, else 1', async () => {
    next = () => {
      throw new StatusError(status.RESOURCE_EXHAUSTED, 'slow down', { 'chainpay-error-code': 'rate_limited', 'retry-after': '7' });
    };
    const withHint = await get();
    expect(withHint.status).toBe(429);
    expect(withHint.headers['retry-after']).toBe('7');
    expect(withHint.text).toBe('{"error":{"code":"rate_limited","message":"slow down"}}');
    next = () => {
      throw new StatusError(status.RESOURCE_EXHAUSTED, 'slow down', { 'chainpay-error-code': 'rate_limited' });
    };
    expect((await get()).headers['retry-after']).toBe('1');
  });

  it('DEADLINE_EXCEEDED (the daemon does not answer within the call deadline) -> 504', async () => {
    next = () => new Promise((resolve) => setTimeout(() => resolve(invoiceFixture()), 1_000));
    const res = await get();
    expect(res.status).toBe(504);
    expect(res.text).toBe('{"error":{"code":"timeout","message":"the service did not answer in time"}}');
  });

  it.each([status.INTERNAL, status.UNKNOWN, status.DATA_LOSS, status.CANCELLED])('gRPC %i -> 500 internal with the request id, nothing else', async (code) => {
    next = () => {
      throw new StatusError(code, 'stack trace with secrets', { 'chainpay-error-code': 'db_exploded' });
    };
    const res = await get();
    const id = res.headers['x-request-id'];
    expect(res.status).toBe(500);
    expect(res.text).toBe(`{"error":{"code":"internal","message":"internal error","id":"${id}"}}`);
    // The detail is in the log line that carries the same id.
    const line = logLines.find((l) => l.request_id === id && l.msg === 'internal error');
    expect(line).toMatchObject({ level: 50, grpc: { code, details: 'stack trace with secrets' } });
  });

  it('a response the REST contract cannot carry (bad metadata_json) -> 500 internal', async () => {
    next = () => invoiceFixture({ metadata_json: '[1,2]' });
    const res = await get();
    expect(res.status).toBe(500);
    expect(res.json()).toEqual({ error: { code: 'internal', message: 'internal error', id: res.headers['x-request-id'] } });
  });

  it('still answers normally afterwards', async () => {
    next = () => Invoice.fromPartial(invoiceFixture());
    expect((await get()).status).toBe(200);
  });
});
