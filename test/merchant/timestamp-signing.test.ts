import { createHmac } from 'node:crypto';
import { startStack, createMerchant, signed, rpc, type Stack, type MerchantCredentials } from '../support/stack';
import { createInvoice } from '../invoices/helpers';
import { run } from '../../src/cli/main';
import type { Merchant } from '../../src/grpc/generated/chainpay/v1/merchants';

/** The signature `chainpay sign --timestamp` prints (its first line), so the CLI's scheme is what is tested against the daemon. */
async function cliSign(secret: string, timestamp: number, method: string, path: string, body: string): Promise<string> {
  let stdout = '';
  const code = await run(['sign', '--secret', secret, '--body', body, '--timestamp', String(timestamp), '--method', method, '--path', path], {
    env: {},
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: () => undefined },
  });
  expect(code).toBe(0);
  expect(stdout).toContain(`X-Service-Timestamp: ${timestamp}`);
  return stdout.split('\n')[0]!;
}

const now = (): number => Math.floor(Date.now() / 1000);

/** Replay-safe signing (X-Service-Timestamp) through the real gateway and daemon. */
describe('timestamped signatures', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  let uuid: string;
  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack);
    uuid = (await createInvoice(stack, m, { amount: '5', network: 'TRC20' })).uuid;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** Sends `method target` with `sentBody`, signed by the CLI over the `signed*` parts. */
  async function send(
    creds: MerchantCredentials,
    sent: { method: string; target: string; body?: string },
    signedParts: { method?: string; target?: string; body?: string; timestamp?: number } = {},
  ): Promise<{ status: number; body: any }> {
    const ts = signedParts.timestamp ?? now();
    const sentBody = sent.body ?? '';
    const signature = await cliSign(creds.apiSecret, ts, signedParts.method ?? sent.method, signedParts.target ?? sent.target, signedParts.body ?? sentBody);
    const headers: Record<string, string> = { 'X-Service-Key': creds.apiKey, 'X-Service-Signature': signature, 'X-Service-Timestamp': String(ts) };
    if (sent.method !== 'GET') headers['Content-Type'] = 'application/json';
    const res = await fetch(stack.baseUrl + sent.target, { method: sent.method, headers, body: sent.method === 'GET' ? undefined : sentBody });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  it('accepted inside the ±300 s window: GET, GET with a query, POST', async () => {
    expect((await send(m, { method: 'GET', target: `/v1/invoices/${uuid}` })).status).toBe(200);
    expect((await send(m, { method: 'GET', target: `/v1/invoices/${uuid}` }, { timestamp: now() - 290 })).status).toBe(200);
    expect((await send(m, { method: 'GET', target: `/v1/invoices/${uuid}` }, { timestamp: now() + 290 })).status).toBe(200);
    expect((await send(m, { method: 'GET', target: '/v1/invoices?limit=2&network=TRC20' })).body.invoices).toHaveLength(1);
    const created = await send(m, { method: 'POST', target: '/v1/invoices', body: '{"amount":"7","network":"BEP20"}' });
    expect(created.status).toBe(201);
  });

  it('refused outside the window: 422 stale_timestamp, nothing created', async () => {
    for (const ts of [now() - 320, now() + 320, 0]) {
      const res = await send(m, { method: 'POST', target: '/v1/invoices', body: '{"amount":"8","order_id":"stale"}' }, { timestamp: ts });
      expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 422, code: 'stale_timestamp' });
      // The message gives the server's time, so a client can see its clock's skew.
      const serverTime = Number(/server time (\d+)\)/.exec(res.body.error.message)?.[1]);
      expect(Math.abs(serverTime - now())).toBeLessThan(60);
    }
    expect((await signed(stack, m, 'GET', '/v1/invoices?order_id=stale')).body.invoices).toEqual([]);
  });

  it('refused on any changed byte of method, path or body (401 invalid_signature)', async () => {
    const body = '{"amount":"9","order_id":"tamper"}';
    const cases = [
      send(m, { method: 'GET', target: `/v1/invoices/${uuid}` }, { method: 'HEAD' }),
      send(m, { method: 'POST', target: '/v1/invoices', body }, { method: 'PUT' }),
      send(m, { method: 'GET', target: `/v1/invoices/${uuid}` }, { target: `/v1/invoices/${uuid.slice(0, -1)}${uuid.endsWith('0') ? '1' : '0'}` }),
      send(m, { method: 'GET', target: '/v1/invoices?limit=6' }, { target: '/v1/invoices?limit=5' }),
      send(m, { method: 'GET', target: '/v1/invoices' }, { target: '/v1/invoices?' }),
      send(m, { method: 'POST', target: '/v1/invoices', body }, { body: body.replace('9', '8') }),
      send(m, { method: 'POST', target: '/v1/invoices', body }, { body: `${body} ` }),
      send(m, { method: 'POST', target: '/v1/invoices', body }, { target: '/v1/withdrawals' }),
    ];
    for (const res of await Promise.all(cases)) expect({ status: res.status, code: res.body?.error?.code }).toEqual({ status: 401, code: 'invalid_signature' });
    // A replayed header with another timestamp does not verify either.
    const ts = now();
    const signature = await cliSign(m.apiSecret, ts, 'GET', `/v1/invoices/${uuid}`, '');
    const replay = await fetch(`${stack.baseUrl}/v1/invoices/${uuid}`, { headers: { 'X-Service-Key': m.apiKey, 'X-Service-Signature': signature, 'X-Service-Timestamp': String(ts + 1) } });
    expect(replay.status).toBe(401);
    // The spec's signature (HMAC of the body alone) is not valid once the header is present.
    const plain = createHmac('sha256', m.apiSecret).update('').digest('hex');
    const mixed = await fetch(`${stack.baseUrl}/v1/invoices/${uuid}`, { headers: { 'X-Service-Key': m.apiKey, 'X-Service-Signature': plain, 'X-Service-Timestamp': String(ts) } });
    expect(mixed.status).toBe(401);
    const malformed = await fetch(`${stack.baseUrl}/v1/invoices/${uuid}`, { headers: { 'X-Service-Key': m.apiKey, 'X-Service-Signature': plain, 'X-Service-Timestamp': '17e8' } });
    expect({ status: malformed.status, code: ((await malformed.json()) as { error: { code: string } }).error.code }).toEqual({ status: 422, code: 'invalid_timestamp' });
    expect((await signed(stack, m, 'GET', '/v1/invoices?order_id=tamper')).body.invoices).toEqual([]);
  });

  it('without the header the spec rule holds; a merchant set to require timestamps refuses header-less requests', async () => {
    const strict = await createMerchant(stack, { name: 'Strict shop' });
    expect((await signed(stack, strict, 'GET', '/v1/balance')).status).toBe(200);
    const updated = await rpc<Merchant>((cb) => stack.clients.merchants.updateMerchant({ merchant_id: strict.merchantId, require_signed_timestamp: true }, stack.operator, cb));
    expect(updated.require_signed_timestamp).toBe(true);
    const refused = await signed(stack, strict, 'GET', '/v1/balance');
    expect({ status: refused.status, code: refused.body?.error?.code }).toEqual({ status: 401, code: 'missing_timestamp' });
    expect((await signed(stack, strict, 'POST', '/v1/invoices', { amount: '5' })).status).toBe(401);
    expect((await send(strict, { method: 'GET', target: '/v1/balance' })).status).toBe(200);
    // Other merchants are unaffected.
    expect((await signed(stack, m, 'GET', '/v1/balance')).status).toBe(200);
    await rpc<Merchant>((cb) => stack.clients.merchants.updateMerchant({ merchant_id: strict.merchantId, require_signed_timestamp: false }, stack.operator, cb));
    expect((await signed(stack, strict, 'GET', '/v1/balance')).status).toBe(200);
  });
});
