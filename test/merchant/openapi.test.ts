import { startStack, createMerchant, signed, type Stack, type MerchantCredentials, type SignedResponse } from '../support/stack';
import { assertMatchesOpenApi } from '../support/openapi';
import { OPENAPI_DOCUMENT } from '../../gateway/openapi/document';
import { addressOf, advance, DAY_S, fund, stackRpcs, WD_ENV, whitelist } from '../withdrawals/support';

/** Every response here goes through the real gateway and daemon and is validated against the served document. */
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

  async function call(method: string, target: string, body?: unknown, creds: MerchantCredentials = m): Promise<SignedResponse> {
    const res = await signed(stack, creds, method, target, body);
    assertMatchesOpenApi(method, target, res.status, res.body);
    return res;
  }

  it('is served unsigned at GET /v1/openapi.json, as committed', async () => {
    const res = await fetch(`${stack.baseUrl}/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(OPENAPI_DOCUMENT)));
  });

  it('the validator refuses a drifted body (it can fail)', () => {
    expect(() => assertMatchesOpenApi('GET', '/v1/balance', 200, { available: '1', held: '0', currency: 'USDT', extra: 1 })).toThrow(/does not match/);
    expect(() => assertMatchesOpenApi('GET', '/v1/balance', 200, { available: 1, held: '0', currency: 'USDT' })).toThrow(/does not match/);
    expect(() => assertMatchesOpenApi('GET', '/v1/balance', 418, {})).toThrow(/does not document/);
  });

  it('invoice, list, cancel, error and balance responses validate', async () => {
    const nets = await fetch(`${stack.baseUrl}/v1/networks`);
    assertMatchesOpenApi('GET', '/v1/networks', nets.status, await nets.json());
    const created = await call('POST', '/v1/invoices', { amount: '12.5', order_id: 'oa-1', metadata: { a: 1 } });
    expect(created.status).toBe(201);
    expect((await call('POST', '/v1/invoices', { amount: '12.5', order_id: 'oa-1' })).status).toBe(200);
    const uuid = created.body.uuid;
    await call('GET', `/v1/invoices/${uuid}`);
    expect((await call('POST', `/v1/invoices/${uuid}/network`, { network: 'TRC20' })).status).toBe(200);
    await call('GET', '/v1/invoices?limit=1');
    expect((await call('POST', `/v1/invoices/${uuid}/cancel`, {})).status).toBe(200);
    expect((await call('POST', `/v1/invoices/${uuid}/cancel`, {})).status).toBe(409);
    expect((await call('POST', `/v1/invoices/${uuid}/network`, { network: 'TRC20' })).status).toBe(409);
    expect((await call('GET', '/v1/invoices/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await call('POST', '/v1/invoices', { amount: '1', netwrok: 'TRC20' })).status).toBe(422);
    expect((await call('GET', '/v1/invoices?limit=500')).status).toBe(422);
    expect((await call('GET', '/v1/balance')).status).toBe(200);
    expect((await call('GET', '/v1/balance', undefined, { ...m, apiSecret: 'wrong' })).status).toBe(401);
  });

  it('withdrawal responses validate', async () => {
    const r = stackRpcs(stack);
    const payee = addressOf('TRC20', 'openapi-payee');
    await fund(r, m.merchantId, '50');
    await whitelist(r, m.merchantId, 'TRC20', payee);
    await advance(r, DAY_S);
    const created = await call('POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '5', reference: 'oa-w' });
    expect(created.status).toBe(201);
    expect((await call('POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '5', reference: 'oa-w' })).status).toBe(200);
    await call('GET', `/v1/withdrawals/${created.body.uuid}`);
    expect((await call('GET', '/v1/withdrawals?limit=5')).body.withdrawals).toHaveLength(1);
  });
});
