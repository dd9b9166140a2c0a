import { createGateway } from '../../gateway/server';
import { createLogger } from '../../src/observability/logger';
import { loadGatewayEnv } from '../../gateway/main';
import { EN } from '../../gateway/checkout/strings';
import type { CheckoutTuning } from '../../gateway/checkout';
import { startStack, createMerchant, signed, rpc, waitForStatus, type Stack, type MerchantCredentials } from '../support/stack';

/**
 * The checkout endpoints over plain HTTP against a real daemon and gateway: the page, its 404,
 * headers, assets, the public network choice (errors, rate limit, form fallback) and the event
 * stream. The buyer's flow in a real browser is in browser.test.ts.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (res: Response): Promise<any> => res.json();
const SECRETS = { meta: 'meta-secret-7f3a', webhook: 'https://hooks.example.com/wh-secret-91c2' };
/** The merchant's order id is shown to the buyer (a reference to quote, issue 39), unlike the secrets. */
const ORDER_ID = 'order-55d1';

describe('checkout endpoints', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  let uuid: string;
  let checkoutPath: string;

  beforeAll(async () => {
    stack = await startStack();
    m = await createMerchant(stack);
    const res = await signed(stack, m, 'POST', '/v1/invoices', {
      amount: '25',
      title: 'Tea <b>&</b> "biscuits"',
      order_id: ORDER_ID,
      webhook_url: SECRETS.webhook,
      return_url: 'https://shop.example/thanks',
      cancel_url: 'https://shop.example/cart',
      metadata: { note: SECRETS.meta },
    });
    expect(res.status).toBe(201);
    uuid = res.body.uuid;
    checkoutPath = new URL(res.body.checkout_url).pathname;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const get = (path: string, headers: Record<string, string> = {}) => fetch(stack.baseUrl + path, { headers, redirect: 'manual' });
  const choose = (body: string, contentType = 'application/json', id = uuid) =>
    fetch(`${stack.baseUrl}/pay/${id}/network`, { method: 'POST', headers: { 'Content-Type': contentType }, body, redirect: 'manual' });
  const expectNoSecrets = (text: string) => {
    for (const secret of [...Object.values(SECRETS), m.merchantId]) expect(text).not.toContain(secret);
  };

  it('renders the page of a network-less invoice: escaped title, fees, networks to choose, no secrets', async () => {
    expect(checkoutPath).toBe(`/pay/${uuid}`);
    const res = await get(checkoutPath);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const html = await res.text();
    expect(html).toContain('Tea &lt;b&gt;&amp;&lt;/b&gt; &quot;biscuits&quot;');
    expect(html).not.toContain('<b>&</b>');
    expect(html).toContain('<meta name="viewport"');
    expect(html).toMatch(/<main id="main"/);
    expect(html).toMatch(/role="status"/);
    // The daemon runs on devnet: the page says it is a test.
    expect(html).toMatch(/<p class="test-banner" id="test-banner" role="note"><strong>Test payment: no real funds\.<\/strong>/);
    expect(html).toContain(`<dd id="invoice-order">${ORDER_ID}</dd>`);
    expect(html).toContain(`<dd id="invoice-reference">${uuid.slice(0, 4).toUpperCase()}-${uuid.slice(4, 8).toUpperCase()}</dd>`);
    expect(html).toContain('Payment to Test shop');
    expect(html).toContain('Choose a network');
    expect(html).toContain('value="TON"');
    expect(html).toContain('value="TRC20"');
    expect(html).toContain('https://shop.example/cart'); // the way out while unpaid
    expect(html).not.toContain('https://shop.example/thanks'); // only after payment
    expect(html).not.toMatch(/<(script|link)[^>]+(src|href)="(https?:)?\/\//); // nothing external
    expectNoSecrets(html);
    const head = await fetch(stack.baseUrl + checkoutPath, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await head.text()).toBe('');
    const post = await fetch(stack.baseUrl + checkoutPath, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  it('answers an unknown or malformed uuid with an HTML 404 page', async () => {
    for (const path of ['/pay/00000000-0000-4000-8000-000000000000', '/pay/not-a-uuid', '/pay', '/pay/', `/pay/${uuid}/nope`]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
      const html = await res.text();
      expect(html).toContain('Payment not found');
      expect(html).not.toContain('checkout-boot');
    }
  });

  it('serves its own script and stylesheet with long-lived validators', async () => {
    const page = await (await get(checkoutPath)).text();
    const script = /<script src="(\/pay\/assets\/checkout\.js\?v=[\w-]+)"/.exec(page)![1]!;
    const style = /<link rel="stylesheet" href="(\/pay\/assets\/checkout\.css\?v=[\w-]+)"/.exec(page)![1]!;
    const js = await get(script);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    expect(await js.text()).toContain('EventSource');
    const css = await get(style);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    const again = await get('/pay/assets/checkout.css', { 'If-None-Match': css.headers.get('etag')! });
    expect(again.status).toBe(304);
    expect((await get('/pay/assets/other.js')).status).toBe(404);
    expect((await fetch(`${stack.baseUrl}/pay/assets/checkout.js`, { method: 'POST' })).status).toBe(405);
  });

  it('refuses bad network choices with the usual JSON error body', async () => {
    let res = await choose('{');
    expect(res.status).toBe(400);
    expect((await json(res)).error.code).toBe('malformed_json');
    res = await choose('{"network":7}');
    expect(res.status).toBe(400);
    expect(await json(res)).toEqual({ error: { code: 'invalid_body', message: EN.chooseFailed, field: 'network' } }); // buyer text, not the developer's
    res = await choose('{}');
    expect(res.status).toBe(400);
    expect((await json(res)).error).toMatchObject({ code: 'missing_field', field: 'network' });
    res = await choose('{"network":"DOGE"}');
    expect(res.status).toBe(422);
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect((await json(res)).error).toMatchObject({ code: 'unknown_network', field: 'network' });
    res = await choose('network=TON', 'text/plain');
    expect(res.status).toBe(415);
    res = await choose('{"network":"TON"}', 'application/json', '00000000-0000-4000-8000-000000000000');
    expect(res.status).toBe(404);
    expect((await json(res)).error.code).toBe('invoice_not_found');
    expect((await fetch(`${stack.baseUrl}/pay/${uuid}/network`)).status).toBe(405);
  });

  it('sets the network (then changes it), and the page then shows address, memo and QR', async () => {
    let res = await choose('{"network":"TRC20"}');
    expect(res.status).toBe(200);
    let body = await json(res);
    expect(body.invoice).toMatchObject({ uuid, status: 'pending', network: 'TRC20', memo: null });
    expect(body.invoice.address).toMatch(/^T/);
    res = await choose('{"network":"TON"}');
    expect(res.status).toBe(200);
    const text = await res.text();
    expectNoSecrets(text);
    body = JSON.parse(text);
    expect(body.invoice).toMatchObject({ network: 'TON', status: 'pending' });
    expect(body.invoice.memo).toBeTruthy();
    expect(body.regions.panel).toContain('The memo is required.');
    expect(Object.keys(body.invoice)).not.toEqual(expect.arrayContaining(['metadata']));

    const page = await (await get(checkoutPath)).text();
    expect(page).toContain(body.invoice.address);
    expect(page).toContain(body.invoice.memo);
    expect(page).toContain('The memo is required.');
    expect(page).toMatch(/<div class="qr-code" role="img" aria-label="[^"]+"><svg aria-hidden="true"/);
    expect(page).toContain(`<span id="amount-value">${body.invoice.pay_amount}</span>`);
    expectNoSecrets(page);
  });

  it('falls back to a form post with a redirect when scripts are off', async () => {
    const res = await choose('network=TRC20', 'application/x-www-form-urlencoded');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(`/pay/${uuid}?lang=en`);
    const bad = await choose('network=DOGE', 'application/x-www-form-urlencoded');
    expect(bad.status).toBe(422);
    expect(bad.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await bad.text()).toContain(`href="/pay/${uuid}?lang=en"`);
  });

  it('streams the current state as server-sent events', async () => {
    const controller = new AbortController();
    const res = await fetch(`${stack.baseUrl}/pay/${uuid}/events`, { signal: controller.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = res.body!.getReader();
    let text = '';
    while (!text.includes('\n\nevent: update') || !text.endsWith('\n\n')) {
      const { value, done } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
    controller.abort();
    expect(text).toMatch(/^retry: \d+\n\n/);
    const data = JSON.parse(/event: update\ndata: (.*)\n\n/.exec(text)![1]!);
    expect(data).toMatchObject({ status: 'pending', final: false, invoice: { uuid, network: 'TRC20' } });
    expect(data.status_text).toBe('Waiting for your payment.');
    expectNoSecrets(text);

    const unknown = await fetch(`${stack.baseUrl}/pay/00000000-0000-4000-8000-000000000000/events`);
    expect(unknown.status).toBe(404);
    expect((await json(unknown)).error.code).toBe('invoice_not_found');
    const malformed = await fetch(`${stack.baseUrl}/pay/nope/events`);
    expect(malformed.status).toBe(404);
    expect((await json(malformed)).error.code).toBe('invoice_not_found');
  });

  it('shows a partial payment with the amount still due, and the wallet link and QR code of the remainder', async () => {
    const created = await signed(stack, m, 'POST', '/v1/invoices', { amount: '10', network: 'TRC20' });
    const inv = created.body;
    expect(inv.pay_amount).toBe('11.1');
    await rpc((cb) => stack.clients.devnet.pay({ network: 'TRC20', to: inv.address, amount: '4' }, stack.operator, cb));
    await rpc((cb) => stack.clients.devnet.mine({ network: 'TRC20', blocks: inv.required_confirmations }, stack.operator, cb));
    await waitForStatus(stack, m, inv.uuid, 'partially_paid');
    const page = await (await get(`/pay/${inv.uuid}`)).text();
    expect(page).toContain('data-status="partially_paid"');
    expect(page).toContain('Partially paid: 7.1 USDT still due.');
    expect(page).toContain('Amount still due');
    expect(page).toContain('<span id="amount-value">7.1</span>');
    expect(page).toContain('<dt>Received</dt><dd>4 USDT</dd>');
    expect(page).toContain(inv.address);
    // The daemon's TRON adapter built the link for the 7.1 still due (the invoice's own asks for 11.1).
    const link = /id="wallet-link" href="([^"]+)"/.exec(page)![1]!.replace(/&amp;/g, '&');
    expect(link).toMatch(new RegExp(`^tron:${inv.address}\\?token=T\\w+&amount=7\\.1$`));
    expect(page).toContain('class="qr-code"');
    expect(page).toContain('ask for the remaining 7.1 USDT only');
    expect(page).not.toContain('Pay on another network'); // money arrived: the network is fixed
  });

  it('caps open event streams per client and ends them when the gateway shuts down', async () => {
    const gateway = createGateway({ grpcAddress: stack.grpcAddress, logger: createLogger('silent', 'test-gateway'), checkout: { maxStreamsPerClient: 1 } });
    const port = await gateway.listen(0, '127.0.0.1');
    const first = await fetch(`http://127.0.0.1:${port}/pay/${uuid}/events`);
    expect(first.status).toBe(200);
    const reader = first.body!.getReader();
    await reader.read();
    const second = await fetch(`http://127.0.0.1:${port}/pay/${uuid}/events`);
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('10');
    const started = Date.now();
    await gateway.close();
    expect(Date.now() - started).toBeLessThan(3000); // not the 10 s grace period
    for (let r = await reader.read(); !r.done; r = await reader.read());
  });

  /** A gateway of its own (own limiter buckets) in front of the stack's daemon. */
  const ownGateway = async (checkout: CheckoutTuning, env: Record<string, string> = {}) => {
    const gateway = createGateway({ grpcAddress: stack.grpcAddress, logger: createLogger('silent', 'test-gateway'), checkout, clientKey: loadGatewayEnv(env).clientKey });
    const port = await gateway.listen(0, '127.0.0.1');
    const post = (id: string, network: string, headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${port}/pay/${id}/network`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ network }) });
    const postForm = (id: string, network: string) =>
      fetch(`http://127.0.0.1:${port}/pay/${id}/network`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `network=${network}`, redirect: 'manual' });
    const raw = (id: string, body: string) => fetch(`http://127.0.0.1:${port}/pay/${id}/network`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    return { post, postForm, raw, close: () => gateway.close() };
  };
  const roomy = { ratePerSecond: 100, burst: 100 };

  it('refuses a network change once money was received (409) and a network whose minimum the amount is below (422), in buyer words', async () => {
    const gw = await ownGateway({ chooseRateLimit: roomy });
    try {
      // 0.7 USDT: above TON's minimum (0.5), below TRC20's (1).
      const small = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '0.7' })).body;
      let res = await gw.post(small.uuid, 'TRC20');
      expect(res.status).toBe(422);
      expect((await json(res)).error).toEqual({ code: 'amount_below_minimum', message: EN.refusals.amount_below_minimum, field: 'amount' });
      expect((await json(await gw.post(small.uuid, 'TON'))).invoice).toMatchObject({ network: 'TON', status: 'pending' });

      const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '10', network: 'TRC20' })).body;
      await rpc((cb) => stack.clients.devnet.pay({ network: 'TRC20', to: inv.address, amount: '4' }, stack.operator, cb));
      await waitForStatus(stack, m, inv.uuid, 'confirming');
      res = await gw.post(inv.uuid, 'TON');
      expect(res.status).toBe(409);
      const refused = await json(res);
      expect(refused.error).toMatchObject({ code: 'network_change_not_allowed', message: EN.refusals.network_change_not_allowed });
      expect(JSON.stringify(refused)).not.toContain('pending and nothing was received'); // the daemon's text stays inside
      expect((await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body).toMatchObject({ network: 'TRC20', address: inv.address });

      // The form fallback shows the same buyer text on its error page.
      const form = await gw.postForm(inv.uuid, 'TON');
      expect(form.status).toBe(409);
      expect(await form.text()).toContain('The network can no longer be changed');
    } finally {
      await gw.close();
    }
  });

  it('refuses a JSON choice with a key it does not have (422 unknown_field) and chooses nothing', async () => {
    const gw = await ownGateway({ chooseRateLimit: roomy });
    try {
      const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '5' })).body;
      const res = await gw.raw(inv.uuid, '{"network":"TON","netwrok":"TON"}');
      expect(res.status).toBe(422);
      expect(await json(res)).toEqual({ error: { code: 'unknown_field', message: EN.chooseFailed, field: 'netwrok' } });
      expect((await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body).toMatchObject({ network: null, address: null });
      expect((await gw.post(inv.uuid, 'TON')).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('caps network changes per invoice (each takes a deposit address); refused choices do not count', async () => {
    const gw = await ownGateway({ chooseRateLimit: roomy });
    try {
      const inv = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '5' })).body;
      for (let i = 0; i < 3; i++) expect((await gw.post(inv.uuid, 'DOGE')).status).toBe(422); // not counted
      const networks = ['TRC20', 'TON', 'TRC20', 'TON', 'TRC20'];
      for (const network of networks) expect((await gw.post(inv.uuid, network)).status).toBe(200);
      const sixth = await gw.post(inv.uuid, 'TON');
      expect(sixth.status).toBe(429);
      expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(60);
      expect((await json(sixth)).error).toEqual({ code: 'too_many_network_changes', message: EN.refusals.too_many_network_changes, field: 'network' });
      expect((await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body.network).toBe('TRC20');
      // Another invoice of the same buyer is not affected.
      const other = (await signed(stack, m, 'POST', '/v1/invoices', { amount: '5' })).body;
      expect((await gw.post(other.uuid, 'TON')).status).toBe(200);
    } finally {
      await gw.close();
    }
  });

  it('TRUSTED_PROXY: the client is the right-most X-Forwarded-For entry that is not a trusted proxy', async () => {
    const limit = { chooseRateLimit: { ratePerSecond: 0.001, burst: 2 } };
    const behind = await ownGateway(limit, { TRUSTED_PROXY: '127.0.0.1, 10.0.0.0/8' });
    const direct = await ownGateway(limit);
    try {
      const statuses = async (gw: typeof behind, xff: string, n: number) => {
        const out: number[] = [];
        for (let i = 0; i < n; i++) out.push((await gw.post(uuid, 'DOGE', { 'X-Forwarded-For': xff })).status);
        return out;
      };
      // Two buyers behind the load balancer (10.1.2.3) get a bucket each.
      expect(await statuses(behind, '198.51.100.7, 10.1.2.3', 3)).toEqual([422, 422, 429]);
      expect(await statuses(behind, '198.51.100.8, 10.1.2.3', 2)).toEqual([422, 422]);
      // A buyer cannot pick a fresh bucket by adding entries on the left.
      expect(await statuses(behind, '203.0.113.99, 198.51.100.7, 10.1.2.3', 1)).toEqual([429]);
      expect(await statuses(behind, '198.51.100.7', 1)).toEqual([429]);
      // Without TRUSTED_PROXY the header is ignored: everyone here is the peer 127.0.0.1.
      expect(await statuses(direct, '198.51.100.7', 2)).toEqual([422, 422]);
      expect(await statuses(direct, '198.51.100.8', 1)).toEqual([429]);
    } finally {
      await behind.close();
      await direct.close();
    }
    expect(() => loadGatewayEnv({ TRUSTED_PROXY: '10.0.0.0/33' })).toThrow(/TRUSTED_PROXY/);
    expect(() => loadGatewayEnv({ TRUSTED_PROXY: 'lb.internal' })).toThrow(/TRUSTED_PROXY/);
  });

  it('rate limits network choices per client address (429 with Retry-After)', async () => {
    // 10 per minute per address; the tests above already spent most of them.
    const statuses: number[] = [];
    let limited: Response | undefined;
    for (let i = 0; i < 11 && limited === undefined; i++) {
      const res = await choose('{"network":"DOGE"}');
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(limited).toBeDefined();
    expect(statuses.slice(0, -1).every((s) => s === 422)).toBe(true);
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await json(limited!)).error.code).toBe('rate_limited');
  });
});
