import { startStack, createMerchant, signed, type Stack, type MerchantCredentials } from '../support/stack';
import { assertMatchesOpenApi, openApiViolations, webhookViolations, type ObservedResponse } from '../support/openapi';
import { OPENAPI_DOCUMENT } from '../../gateway/openapi/document';
import { INVOICE_EVENT_TYPES, INVOICE_STATUS_VALUES, NETWORK_CODE_VALUES, WITHDRAWAL_STATUS_VALUES } from '../../gateway/openapi/schemas';
import { V1_ROUTES } from '../../gateway/routes';
import { INVOICE_STATUSES } from '../../src/domain/invoice-statuses';
import { NETWORK_CODES } from '../../src/domain/networks';
import { WITHDRAWAL_STATUSES } from '../../src/domain/withdrawal-context';
import { invoiceFixture } from '../gateway/fake-daemon';
import { send, signed as signedHeaders, startHarness } from '../gateway/http-client';
import { addressOf, advance, DAY_S, fund, stackRpcs, WD_ENV, whitelist } from '../withdrawals/support';

/**
 * The suite validates every /v1 response against the served document (test/support/openapi-setup.ts);
 * this file shows the document is served as committed, matches the gateway's routes and the
 * domain's enums, and that the validator refuses what drifts from it.
 */
const observed = (o: Partial<ObservedResponse> & { body?: unknown; headers?: Record<string, string> }): ObservedResponse => {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'req-1', ...o.headers };
  return { method: o.method ?? 'GET', target: o.target ?? '/v1/balance', status: o.status ?? 200, header: (n) => headers[n.toLowerCase()], text: o.text ?? JSON.stringify(o.body) };
};
const BALANCE = { available: '1', held: '0', currency: 'USDT' };
const refused = (o: Parameters<typeof observed>[0]) => openApiViolations(observed(o));

describe('OpenAPI 3.1 document', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  beforeAll(async () => {
    stack = await startStack({ env: WD_ENV });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('is served unsigned at GET /v1/openapi.json, as committed', async () => {
    const res = await fetch(`${stack.baseUrl}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(OPENAPI_DOCUMENT)));
  });

  it('lists exactly the gateway routes, with their methods', () => {
    const documented = Object.entries(OPENAPI_DOCUMENT.paths).map(
      ([path, item]) =>
        `${path} ${Object.keys(item)
          .map((m) => m.toUpperCase())
          .sort()
          .join(',')}`,
    );
    const routed = V1_ROUTES.map((r) => `${r.path.replace(/:(\w+)/g, '{$1}')} ${Object.keys(r.methods).sort().join(',')}`);
    expect(documented.sort()).toEqual(routed.sort());
  });

  it('its enums are the domain’s (statuses, network codes, event types)', () => {
    expect(INVOICE_STATUS_VALUES).toEqual([...INVOICE_STATUSES]);
    expect(WITHDRAWAL_STATUS_VALUES).toEqual([...WITHDRAWAL_STATUSES]);
    expect(NETWORK_CODE_VALUES).toEqual([...NETWORK_CODES]);
    expect(INVOICE_EVENT_TYPES).toEqual(expect.arrayContaining(['invoice.confirming', 'invoice.paid', 'invoice.canceled', 'invoice.paid_late', 'invoice.reverted']));
    expect(INVOICE_EVENT_TYPES).not.toContain('invoice.pending');
  });

  it('the validator refuses a drifted response (it can fail)', () => {
    expect(refused({ body: BALANCE })).toEqual([]);
    expect(refused({ body: { ...BALANCE, extra: 1 } })).toEqual([expect.stringMatching(/must NOT have additional properties/)]);
    expect(refused({ body: { ...BALANCE, available: 1 } })).toEqual([expect.stringMatching(/must be string/)]);
    expect(refused({ body: { held: '0', currency: 'USDT' } })).toEqual([expect.stringMatching(/must have required property 'available'/)]);
    expect(refused({ status: 418, body: {} })).toEqual([expect.stringMatching(/does not list status 418/)]);
    expect(refused({ body: BALANCE, headers: { 'content-type': 'text/plain' } })).toEqual([expect.stringMatching(/Content-Type/)]);
    expect(refused({ body: BALANCE, headers: { 'x-request-id': 'has spaces' } })).toEqual([expect.stringMatching(/X-Request-Id/)]);
    expect(refused({ text: 'not json' })).toEqual([expect.stringMatching(/not JSON/)]);
    // Error bodies: a code the status does not document, a detail beyond the shape, headers.
    const error = (code: string, extra = {}) => ({ error: { code, message: 'm', ...extra } });
    expect(refused({ status: 422, body: error('stale_timestamp') })).toEqual([]);
    expect(refused({ status: 422, body: error('amount_below_minimum') })).toEqual([expect.stringMatching(/must be equal to one of the allowed values/)]);
    expect(refused({ status: 422, body: error('stale_timestamp', { details: { server_time: 1 } }) })).toEqual([expect.stringMatching(/additional properties/)]);
    expect(refused({ status: 429, body: error('rate_limited') })).toEqual([expect.stringMatching(/Retry-After is missing/)]);
    expect(refused({ status: 429, body: error('rate_limited'), headers: { 'retry-after': '1' } })).toEqual([]);
    expect(refused({ method: 'POST', target: '/v1/invoices', status: 503, body: error('pool_exhausted') })).toEqual([expect.stringMatching(/Retry-After is missing/)]);
    expect(refused({ method: 'POST', target: '/v1/invoices', status: 503, body: error('service_unavailable') })).toEqual([]);
    expect(refused({ status: 500, body: { error: { code: 'internal', message: 'internal error', id: 'other' } } })).toEqual([expect.stringMatching(/not the X-Request-Id/)]);
    // Paths and methods the document does not have.
    expect(refused({ target: '/v1/nope', status: 404, body: error('not_found') })).toEqual([]);
    expect(refused({ target: '/v1/nope', status: 200, body: {} })).toEqual([expect.stringMatching(/expected 404/)]);
    expect(refused({ method: 'DELETE', target: '/v1/invoices', status: 405, body: error('method_not_allowed'), headers: { allow: 'POST, GET' } })).toEqual([]);
    expect(refused({ method: 'DELETE', target: '/v1/invoices', status: 405, body: error('method_not_allowed'), headers: { allow: 'GET' } })).toEqual([expect.stringMatching(/Allow is "GET"/)]);
    // The parsed-body form used by earlier tests.
    expect(() => assertMatchesOpenApi('GET', '/v1/balance', 200, { ...BALANCE, extra: 1 })).toThrow(/does not match/);
  });

  it('a drifted answer of a real gateway is refused: an unknown status from the daemon', async () => {
    const h = await startHarness();
    try {
      h.daemon.on('GetInvoice', () => invoiceFixture({ status: 'settled', network: 'DOGE' }));
      const res = await send(h.port, { path: `/v1/invoices/${invoiceFixture().uuid}`, headers: signedHeaders(''), openapi: false });
      expect(res.status).toBe(200);
      const problems = openApiViolations({ method: 'GET', target: `/v1/invoices/${invoiceFixture().uuid}`, status: res.status, header: (n) => res.headers[n.toLowerCase()] as string, text: res.text });
      expect(problems.join('\n')).toMatch(/\/status must be equal to one of the allowed values/);
      expect(problems.join('\n')).toMatch(/\/network/);
    } finally {
      await h.stop();
    }
  });

  it('webhook deliveries are validated against `webhooks`', () => {
    const invoice = JSON.parse(JSON.stringify({ ...invoiceFixture(), metadata: {} }));
    const data = {
      uuid: invoice.uuid,
      status: 'paid',
      order_id: null,
      title: null,
      amount: '100',
      currency: 'USDT',
      platform_fee: '1',
      network_fee: '0',
      pay_amount: '101',
      merchant_net: '100',
      fee_payer: 'buyer',
      network: null,
      address: null,
      memo: null,
      checkout_url: invoice.checkout_url,
      qr_svg: '',
      received_amount: '101',
      confirmations: 0,
      required_confirmations: 0,
      tx_hash: null,
      metadata: {},
      expires_at: invoice.expires_at,
      paid_at: null,
      created_at: invoice.created_at,
      paid_late: false,
      payments: [],
      return_url: null,
      cancel_url: null,
      livemode: false,
    };
    const event = { id: 'evt_0123456789abcdef01234567', type: 'invoice.paid', created_at: '2026-01-01T00:00:00.000Z', data };
    const headers = {
      'content-type': 'application/json',
      'x-service-signature': 'a'.repeat(64),
      'webhook-id': event.id,
      'webhook-timestamp': '1767225600',
      'webhook-signature': 'v1,c2lnbmF0dXJl',
    };
    expect(webhookViolations(headers, Buffer.from(JSON.stringify(event)))).toEqual([]);
    expect(webhookViolations(headers, Buffer.from(JSON.stringify({ ...event, type: 'invoice.settled' })))).toEqual([expect.stringMatching(/allowed values/)]);
    expect(webhookViolations(headers, Buffer.from(JSON.stringify({ ...event, type: 'refund.created' })))).toEqual([expect.stringMatching(/not documented/)]);
    expect(webhookViolations(headers, Buffer.from(JSON.stringify({ ...event, data: { ...data, extra: 1 } })))).toEqual([expect.stringMatching(/additional properties/)]);
    expect(webhookViolations({ ...headers, 'webhook-signature': undefined }, Buffer.from(JSON.stringify(event)))).toEqual([expect.stringMatching(/webhook-signature is missing/)]);
  });

  it('invoice, list, cancel, error and balance responses validate', async () => {
    // Each call below is validated by the suite's fetch; the statuses show the answers exercised.
    const nets = await fetch(`${stack.baseUrl}/v1/networks`);
    expect(nets.status).toBe(200);
    const created = await signed(stack, m, 'POST', '/v1/invoices', { amount: '12.5', order_id: 'oa-1', metadata: { a: 1 } });
    expect(created.status).toBe(201);
    expect((await signed(stack, m, 'POST', '/v1/invoices', { amount: '12.5', order_id: 'oa-1' })).status).toBe(200);
    const uuid = created.body.uuid;
    await signed(stack, m, 'GET', `/v1/invoices/${uuid}`);
    expect((await signed(stack, m, 'POST', `/v1/invoices/${uuid}/network`, { network: 'TRC20' })).status).toBe(200);
    await signed(stack, m, 'GET', '/v1/invoices?limit=1');
    expect((await signed(stack, m, 'POST', `/v1/invoices/${uuid}/cancel`, {})).status).toBe(200);
    expect((await signed(stack, m, 'POST', `/v1/invoices/${uuid}/cancel`, {})).status).toBe(409);
    expect((await signed(stack, m, 'POST', `/v1/invoices/${uuid}/network`, { network: 'TRC20' })).status).toBe(409);
    expect((await signed(stack, m, 'GET', '/v1/invoices/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await signed(stack, m, 'POST', '/v1/invoices', { amount: '1', netwrok: 'TRC20' })).status).toBe(422);
    expect((await signed(stack, m, 'GET', '/v1/invoices?limit=500')).status).toBe(422);
    expect((await signed(stack, m, 'GET', '/v1/balance')).status).toBe(200);
    expect((await signed(stack, { ...m, apiSecret: 'wrong' }, 'GET', '/v1/balance')).status).toBe(401);
    expect((await fetch(`${stack.baseUrl}/v1/balance`, { method: 'DELETE' })).status).toBe(405);
    expect((await fetch(`${stack.baseUrl}/v1/nothing`)).status).toBe(404);
  });

  it('withdrawal responses validate', async () => {
    const r = stackRpcs(stack);
    const payee = addressOf('TRC20', 'openapi-payee');
    await fund(r, m.merchantId, '50');
    await whitelist(r, m.merchantId, 'TRC20', payee);
    await advance(r, DAY_S);
    const created = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '5', reference: 'oa-w' });
    expect(created.status).toBe(201);
    expect((await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '5', reference: 'oa-w' })).status).toBe(200);
    await signed(stack, m, 'GET', `/v1/withdrawals/${created.body.uuid}`);
    expect((await signed(stack, m, 'GET', '/v1/withdrawals?limit=5')).body.withdrawals).toHaveLength(1);
  });
});
