import { createHmac } from 'node:crypto';
import net from 'node:net';
import type { Merchant } from '../../src/grpc/generated/chainpay/v1/merchants';
import { METADATA_DEPTH_MAX } from '../../src/domain/metadata';
import { createMerchant, rpc, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';
import { addressOf, DAY_S, fund, stackRpcs, whitelist } from '../withdrawals/support';
import { advance } from '../invoices/helpers';
import { checkResponse, headerReader } from '../support/openapi';

jest.setTimeout(120_000);

/**
 * Issue 37: every input is refused with the documented 4xx (and nothing written) or accepted and
 * stored exactly; never a 5xx. Through the real gateway, daemon and PostgreSQL.
 */
describe('hostile input through the real gateway', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  const payee = addressOf('TRC20', 'hostile-payee');

  beforeAll(async () => {
    stack = await startStack({ env: { TRC20_MIN_WITHDRAWAL: '1', TRC20_WITHDRAWAL_FEE: '1' } });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** Rows a refused request must not leave: invoices, withdrawals, allocated addresses, outbox events. */
  async function traces(): Promise<string> {
    const rows = await stack.daemon.orm.em
      .fork()
      .execute<{ t: string }[]>(
        `select concat_ws(',', (select count(*) from invoices), (select count(*) from withdrawals), (select count(*) from deposit_addresses where invoice_uuid is not null), (select count(*) from outbox_events)) as t`,
      );
    return rows[0]!.t;
  }

  async function expectRefused(path: string, body: string | object, status: number, code: string, field?: string): Promise<void> {
    const before = await traces();
    const res = await signed(stack, m, 'POST', path, body);
    expect([res.status, res.body?.error?.code, res.body?.error?.field]).toEqual([status, code, field]);
    expect(await traces()).toBe(before);
  }

  it.each([
    ['order_id', 'a\u0000b'],
    ['title', 'x\u0000'],
    ['webhook_url', 'https://shop.example/\u0000hook'],
    ['return_url', 'https://shop.example/ok\u0000'],
    ['cancel_url', 'https://shop.example/\u0000'],
  ])('a NUL in %s: 422 naming the field, nothing written', async (field, value) => {
    await expectRefused('/v1/invoices', { amount: '10', [field]: value }, 422, `invalid_${field}`, field);
  });

  it.each([
    ['order_id', 'order-\\ud800'],
    ['title', '\\udc00 title'],
    ['order_id', 'x\\udbff\\udbff'],
  ])('a lone surrogate (escaped) in %s: 422, not stored as U+FFFD', async (field, escaped) => {
    await expectRefused('/v1/invoices', `{"amount":"10","${field}":"${escaped}"}`, 422, `invalid_${field}`, field);
  });

  it('a body that is not UTF-8 is malformed (400), not read with U+FFFD in place; nothing written', async () => {
    const before = await traces();
    const bytes = Buffer.concat([Buffer.from('{"amount":"10","order_id":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    const signature = createHmac('sha256', m.apiSecret).update(bytes).digest('hex');
    const res = await fetch(`${stack.baseUrl}/v1/invoices`, {
      method: 'POST',
      headers: { 'X-Service-Key': m.apiKey, 'X-Service-Signature': signature, 'Content-Type': 'application/json' },
      body: bytes,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('malformed_json');
    expect(await traces()).toBe(before);
  });

  it('lengths count code points: 200 emoji are 200 characters (accepted), 201 are refused', async () => {
    const ok = await signed(stack, m, 'POST', '/v1/invoices', { amount: '10', title: '🧾'.repeat(200), order_id: '💸'.repeat(200) });
    expect(ok.status).toBe(201);
    expect(ok.body.title).toBe('🧾'.repeat(200));
    expect(ok.body.order_id).toBe('💸'.repeat(200));
    await expectRefused('/v1/invoices', { amount: '10', title: '🧾'.repeat(201) }, 422, 'invalid_title', 'title');
  });

  it(`metadata nested deeper than ${METADATA_DEPTH_MAX} levels: 422 metadata_too_deep (4,100 levels in 8 KB: no 500)`, async () => {
    const nest = (depth: number): string => `{"metadata":${'{"a":'.repeat(depth - 1)}{}${'}'.repeat(depth - 1)},"amount":"10"}`;
    await expectRefused('/v1/invoices', nest(METADATA_DEPTH_MAX + 1), 422, 'metadata_too_deep', 'metadata');
    await expectRefused('/v1/invoices', `{"amount":"10","metadata":{"a":${'['.repeat(4100)}${']'.repeat(4100)}}}`, 422, 'metadata_too_deep', 'metadata');
    const atLimit = await signed(stack, m, 'POST', '/v1/invoices', nest(METADATA_DEPTH_MAX));
    expect(atLimit.status).toBe(201);
  });

  it('metadata is echoed exactly (unicode, nesting, NUL escapes, every number as written: no trip through a JS number)', async () => {
    const metadata = '{"cart":{"id":7,"items":["a","ü",null,true]},"price":12.50,"neg":-0.25,"big":9007199254740993,"huge":1e400,"digits":12345678901234567890.000,"nul":"a\\u0000b","emoji":"🧾"}';
    const res = await signed(stack, m, 'POST', '/v1/invoices', `{"amount":"10","metadata":${metadata}}`);
    expect(res.status).toBe(201);
    expect(res.text).toContain(`"metadata":${metadata},`);
    const got = await signed(stack, m, 'GET', `/v1/invoices/${res.body.uuid}`);
    expect(got.text).toContain(`"metadata":${metadata},`);
    await expectRefused('/v1/invoices', '{"amount":"10","metadata":{"\\ud800":1}}', 422, 'invalid_metadata', 'metadata');
    await expectRefused('/v1/invoices', '{"amount":"10","metadata":{"a":1,"a":2}}', 422, 'invalid_metadata', 'metadata');
  });

  it.each(['https://127.0.0.1/hook', 'https://[::1]/hook', 'https://localhost/hook'])("devnet's allow flag (WEBHOOK_ALLOW_PRIVATE_TARGETS) still allows the loopback webhook_url %s", async (url) => {
    const res = await signed(stack, m, 'POST', '/v1/invoices', { amount: '10', webhook_url: url });
    expect(res.status).toBe(201);
  });

  it('a withdrawal reference with a NUL or a lone surrogate: 422 invalid_reference, nothing held', async () => {
    const r = stackRpcs(stack);
    await fund(r, m.merchantId, '50');
    await whitelist(r, m.merchantId, 'TRC20', payee);
    await advance(stack, DAY_S);
    await rpc<Merchant>((cb) => stack.clients.merchants.updateMerchant({ merchant_id: m.merchantId, cap_per_withdrawal: '50', cap_daily: '100' }, stack.operator, cb));
    await expectRefused('/v1/withdrawals', { network: 'TRC20', address: payee, amount: '5', reference: 'ref\u0000' }, 422, 'invalid_reference', 'reference');
    await expectRefused('/v1/withdrawals', `{"network":"TRC20","address":"${payee}","amount":"5","reference":"\\udfff"}`, 422, 'invalid_reference', 'reference');
    const ok = await signed(stack, m, 'POST', '/v1/withdrawals', { network: 'TRC20', address: payee, amount: '5', reference: '🧾'.repeat(200) });
    expect(ok.status).toBe(201);
  });

  it('a malformed HTTP request gets a JSON error body (400 malformed_request), not a bare 400', async () => {
    const { port } = new URL(stack.baseUrl);
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.write('GET /v1/networks HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'));
      let got = '';
      socket.on('data', (d) => (got += d.toString('latin1')));
      socket.on('end', () => resolve(got));
      socket.on('error', reject);
    });
    const [head, body] = raw.split('\r\n\r\n');
    const headers = Object.fromEntries(
      head!
        .split('\r\n')
        .slice(1)
        .map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
    );
    checkResponse({ method: 'GET', target: '/v1/networks', status: Number(head!.split(' ')[1]), header: headerReader(headers), text: body! });
    expect(head).toMatch(/^HTTP\/1\.1 400 /);
    expect(head).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(body!)).toEqual({ error: { code: 'malformed_request', message: 'the HTTP request could not be parsed' } });
  });
});

describe('webhook URLs at submission, guard on (no devnet allow flag)', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  const names: Record<string, string[]> = {
    'internal.shop.test': ['10.1.2.3'],
    'metadata.shop.test': ['169.254.169.254', 'fd00::1'],
    'mixed.shop.test': ['10.1.2.3', '93.184.216.34'],
    'public.shop.test': ['93.184.216.34'],
  };
  beforeAll(async () => {
    const resolver = async (host: string) => {
      const found = names[host];
      if (!found) throw Object.assign(new Error(`no such host ${host}`), { code: 'ENOTFOUND' });
      return found.map((address) => ({ address, family: (address.includes(':') ? 6 : 4) as 4 | 6 }));
    };
    stack = await startStack({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' }, daemon: { webhooks: { resolver } } });
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it.each([
    'https://10.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://127.0.0.1/hook',
    'https://0x7f000001/hook',
    'https://[::1]/hook',
    'https://[fc00::1]/hook',
    'https://[fe80::1]/hook',
    'https://[::ffff:10.0.0.1]/hook',
    'https://100.64.0.1/hook',
    'https://172.16.5.4/hook',
    'https://internal.shop.test/hook',
    'https://metadata.shop.test/hook',
  ])('%s: 422 invalid_webhook_url, nothing written', async (url) => {
    const count = async () => (await stack.daemon.orm.em.fork().execute<{ n: string }[]>('select count(*)::text as n from invoices'))[0]!.n;
    const before = await count();
    const res = await signed(stack, m, 'POST', '/v1/invoices', { amount: '10', webhook_url: url });
    expect([res.status, res.body?.error?.code, res.body?.error?.field]).toEqual([422, 'invalid_webhook_url', 'webhook_url']);
    expect(await count()).toBe(before);
  });

  it.each(['https://public.shop.test/hook', 'https://mixed.shop.test/hook', 'https://unresolvable.shop.test/hook', 'https://93.184.216.34/hook'])(
    '%s: accepted (a public address, some public address, or no answer now: the connect-time guard decides)',
    async (url) => {
      const res = await signed(stack, m, 'POST', '/v1/invoices', { amount: '10', webhook_url: url });
      expect(res.status).toBe(201);
    },
  );

  it("a merchant's webhook URL set by the operator is checked the same way", async () => {
    await expect(rpc((cb) => stack.clients.merchants.updateMerchant({ merchant_id: m.merchantId, webhook_url: 'https://internal.shop.test/h' }, stack.operator, cb))).rejects.toMatchObject({
      details: expect.stringContaining('webhooks are never sent') as unknown,
    });
  });
});
