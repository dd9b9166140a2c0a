import * as grpc from '@grpc/grpc-js';
import { generateSync } from 'otplib';
import type { BrowserContext, Page } from 'playwright-core';
import { DashboardUserServiceClient, type SetupLinkResponse } from '../../src/grpc/generated/chainpay/v1/dashboard';
import { launchBrowsers, type Browsers, type SizeName } from '../checkout/browser-support';
import { createMerchant, rpc, signed, startStack, waitForStatus, type MerchantCredentials, type Stack } from '../support/stack';
import { fitsWidth, seriousViolations, shot } from './browser-support';

/**
 * A merchant's user in Chromium, desktop and phone, against a real daemon and gateway: setup link,
 * password, TOTP enrolment (codes computed here with otplib from the secret the page shows), sign
 * in, an invoice made through the REST API appears, is paid on devnet, and its page shows the
 * payment; the CSV export holds the listed invoices; a filter never hides a new invoice silently.
 * Every page: axe-core finds nothing serious, nothing is wider than a phone, the frame headers are set.
 */
let stack: Stack;
let shop: MerchantCredentials;
let browsers: Browsers;
let users: DashboardUserServiceClient;

beforeAll(async () => {
  [stack, browsers] = await Promise.all([startStack({ daemon: { dashboard: { loginGuard: { perAccount: 3, perAddress: 100, windowMs: 60_000, lockMs: 60_000 } } } }), launchBrowsers()]);
  shop = await createMerchant(stack, { name: 'Corner shop' });
  users = new DashboardUserServiceClient(stack.grpcAddress, grpc.credentials.createInsecure());
}, 60_000);
afterAll(async () => {
  users?.close();
  await browsers?.close();
  await stack?.stop();
});

const totp = (secret: string, offset = 0): string => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * offset });
const addUser = (email: string, merchantId = shop.merchantId) => rpc<SetupLinkResponse>((cb) => users.addUser({ merchant_id: merchantId, email, role: 'owner' }, stack.operator, cb));

/** Opens a page of the dashboard, checks its framing headers, accessibility and width, and screenshots it. */
async function visit(page: Page, urlPath: string, name: string, size: SizeName): Promise<void> {
  const res = await page.goto(stack.baseUrl + urlPath);
  expect(res!.status()).toBeLessThan(400);
  await checkPage(page, name, size);
}

async function checkPage(page: Page, name: string, size: SizeName): Promise<void> {
  const headers = (await page.context().request.get(page.url(), { maxRedirects: 0 })).headers();
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
  expect(headers['content-security-policy']).not.toMatch(/script-src|unsafe-inline/);
  expect(await seriousViolations(page)).toEqual([]);
  expect(await fitsWidth(page)).toBe(true);
  await shot(page, `${name}-${size}`);
}

/** Setup through the page, then sign-in: the page's own forms, as a person would. */
async function enrolAndSignIn(context: BrowserContext, size: SizeName, email: string, password: string): Promise<Page> {
  const link = await addUser(email);
  const page = await context.newPage();
  await visit(page, new URL(link.setup_url).pathname, 'setup', size);
  const secret = (await page.textContent('#totp-secret'))!.trim();
  expect(await page.getAttribute('img.qr', 'src')).toMatch(/^data:image\/svg\+xml;base64,/);
  await page.fill('#password', password);
  await page.fill('#code', totp(secret, -1));
  await Promise.all([page.waitForURL(/\/dashboard\/sign-in\?setup=done$/), page.click('button[type=submit]')]);
  await checkPage(page, 'sign-in', size);
  await page.fill('#email', email);
  await page.fill('#password', password);
  await page.fill('#code', totp(secret, 0));
  await Promise.all([page.waitForURL(/\/dashboard\/overview$/), page.click('button[type=submit]')]);
  const cookies = await context.cookies(`${stack.baseUrl}/dashboard/`);
  expect(cookies.find((c) => c.name === 'cp_dash_session')).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/dashboard' });
  return page;
}

const uuidsOf = (page: Page): Promise<string[]> => page.$$eval('tr[data-uuid]', (rows) => rows.map((r) => r.getAttribute('data-uuid')!));

it.each(['desktop', 'phone'] as const)(
  '%s: setup, sign-in, an invoice appears, is paid on devnet and its page shows the payment; CSV matches the list',
  async (size) => {
    const context = browsers.contexts[size];
    const page = await enrolAndSignIn(context, size, `owner-${size}@shop.example`, `a ${size} password!`);
    await checkPage(page, 'overview', size);

    const orderId = `ORD-${size}`;
    const created = (await signed(stack, shop, 'POST', '/v1/invoices', { amount: '12.5', order_id: orderId, network: 'TON' })).body;
    await visit(page, '/dashboard/invoices', 'invoices', size);
    expect(await uuidsOf(page)).toContain(created.uuid);

    await rpc((cb) => stack.clients.devnet.pay({ network: 'TON', to: created.address, amount: created.pay_amount, memo: created.memo }, stack.operator, cb));
    await rpc((cb) => stack.clients.devnet.mine({ network: 'TON', blocks: created.required_confirmations }, stack.operator, cb));
    const paid = await waitForStatus(stack, shop, created.uuid, 'paid');
    await visit(page, `/dashboard/invoices/${created.uuid}`, 'invoice', size);
    expect((await page.textContent('#invoice-status'))!.trim()).toBe('paid');
    expect(await page.textContent('#payments')).toContain(paid.payments[0].tx_hash);
    expect(await page.textContent('#events')).toContain('invoice.paid');

    // Search finds it by transaction hash and by deposit address too.
    await page.goto(`${stack.baseUrl}/dashboard/invoices?q=${encodeURIComponent(paid.payments[0].tx_hash)}`);
    expect(await uuidsOf(page)).toEqual([created.uuid]);
    // A TON address is shared (the memo tells invoices apart): every invoice sent to it is listed.
    await page.goto(`${stack.baseUrl}/dashboard/invoices?q=${encodeURIComponent(created.address)}`);
    expect(await uuidsOf(page)).toContain(created.uuid);

    // Filtered list and its CSV: the same invoices, in the same order.
    await visit(page, `/dashboard/invoices?status=paid&q=${orderId}`, 'invoices-filtered', size);
    const listed = await uuidsOf(page);
    expect(listed).toEqual([created.uuid]);
    const csv = await (await context.request.get(`${stack.baseUrl}/dashboard/invoices.csv?status=paid&q=${orderId}`)).text();
    const lines = csv.trim().split('\r\n');
    expect(lines[0]).toContain('"created_at (UTC)"');
    expect(lines.slice(1).map((l) => JSON.parse(l.split(',')[0]!))).toEqual(listed);
    const all = await (await context.request.get(`${stack.baseUrl}/dashboard/invoices.csv`)).text();
    await visit(page, '/dashboard/invoices', 'invoices', size);
    expect(
      all
        .trim()
        .split('\r\n')
        .slice(1)
        .map((l) => JSON.parse(l.split(',')[0]!)),
    ).toEqual(await uuidsOf(page));

    // A new invoice the filter leaves out is announced, not silently hidden.
    await signed(stack, shop, 'POST', '/v1/invoices', { amount: '3', order_id: `NEW-${size}` });
    await page.goto(`${stack.baseUrl}/dashboard/invoices?status=paid`);
    expect(await page.textContent('#hidden-newer')).toMatch(/^1 newer invoice\(s\) are hidden by your filters\./);

    await visit(page, '/dashboard/security', 'security', size);
    expect(await page.textContent('#sessions')).toContain('this session');
    await page.close();
  },
  60_000,
);

it('security: another merchant is out of reach on every route, forms need their CSRF token, a signed-out cookie is dead, wrong codes lock the same way for an unknown email', async () => {
  const context = browsers.contexts.desktop;
  await context.clearCookies();
  const page = await enrolAndSignIn(context, 'desktop', 'guard@shop.example', 'guarded password');
  const other = await createMerchant(stack, { name: 'Other shop' });
  const theirs = (await signed(stack, other, 'POST', '/v1/invoices', { amount: '9', order_id: 'THEIRS-1' })).body;
  // Every route that takes an id or a search: the other merchant's invoice is not there.
  expect((await page.goto(`${stack.baseUrl}/dashboard/invoices/${theirs.uuid}`))!.status()).toBe(404);
  for (const q of [theirs.uuid, 'THEIRS-1', theirs.address]) {
    await page.goto(`${stack.baseUrl}/dashboard/invoices?q=${encodeURIComponent(q)}`);
    expect(await uuidsOf(page)).toEqual([]);
    const csv = await (await context.request.get(`${stack.baseUrl}/dashboard/invoices.csv?q=${encodeURIComponent(q)}`)).text();
    expect(csv).not.toContain(theirs.uuid);
  }

  // A form without its CSRF token (or with another session's) is refused and changes nothing.
  await visit(page, '/dashboard/security', 'security', 'desktop');
  const form = { headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, maxRedirects: 0 };
  for (const action of ['security/time-zone', 'security/password', 'security/sign-out-others', 'sign-out']) {
    const data = 'time_zone=Asia%2FTokyo&current_password=guarded+password&new_password=another+password&code=000000';
    expect([action, (await context.request.post(`${stack.baseUrl}/dashboard/${action}`, { ...form, data })).status()]).toEqual([action, 403]);
    expect([action, (await context.request.post(`${stack.baseUrl}/dashboard/${action}`, { ...form, data: `${data}&csrf=forged` })).status()]).toEqual([action, 403]);
  }
  const setupLink = await addUser('csrf-setup@shop.example');
  expect((await context.request.post(setupLink.setup_url.replace(/^https?:\/\/[^/]+/, stack.baseUrl), { ...form, data: 'password=long+enough+pass&code=000000' })).status()).toBe(403);
  expect((await context.request.post(`${stack.baseUrl}/dashboard/sign-in`, { ...form, data: 'email=guard%40shop.example&password=x&code=1' })).status()).toBe(403);
  await page.goto(`${stack.baseUrl}/dashboard/security`);
  expect(await page.textContent('.foot .zone')).toBe('Times in UTC');
  // With the token, the same form works.
  await page.fill('#tz', 'Asia/Tokyo');
  await Promise.all([page.waitForURL(/done=zone/), page.click('form[action$="time-zone"] button')]);
  expect(await page.textContent('.foot .zone')).toBe('Times in Asia/Tokyo');

  // An unknown page is an HTML 404 with the same headers (a browser reads it), not JSON.
  const nope = await fetch(`${stack.baseUrl}/dashboard/nope`);
  expect([nope.status, nope.headers.get('content-type'), nope.headers.get('x-frame-options')]).toEqual([404, 'text/html; charset=utf-8', 'DENY']);

  // Sign out; the old cookie, replayed from elsewhere, is refused.
  const token = (await context.cookies(`${stack.baseUrl}/dashboard/`)).find((c) => c.name === 'cp_dash_session')!.value;
  await Promise.all([page.waitForURL(/\/dashboard\/sign-in$/), page.click('.sign-out button')]);
  const replay = await fetch(`${stack.baseUrl}/dashboard/overview`, { headers: { Cookie: `cp_dash_session=${token}`, 'X-Forwarded-For': '192.0.2.50' }, redirect: 'manual' });
  expect(replay.status).toBe(303);
  expect(replay.headers.get('location')).toBe('/dashboard/sign-in?ended=1');

  // Three wrong codes lock the account; an unknown email gets the very same answers.
  const attempt = async (email: string, code: string): Promise<{ status: number; alert: string }> => {
    await page.goto(`${stack.baseUrl}/dashboard/sign-in`);
    await page.fill('#email', email);
    await page.fill('#password', 'guarded password');
    await page.fill('#code', code);
    const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/dashboard/sign-in') && r.request().method() === 'POST'), page.click('button[type=submit]')]);
    return { status: res.status(), alert: (await page.textContent('[role=alert]'))!.trim() };
  };
  const known: Array<{ status: number; alert: string }> = [];
  const unknown: Array<{ status: number; alert: string }> = [];
  for (let i = 0; i < 4; i++) {
    known.push(await attempt('guard@shop.example', '000000'));
    unknown.push(await attempt('nobody@shop.example', '000000'));
  }
  expect(known).toEqual(unknown);
  expect(known.map((k) => k.status)).toEqual([401, 401, 401, 429]);
  expect(known[3]!.alert).toBe('Too many failed attempts. Try again in a few minutes.');
  await shot(page, 'sign-in-locked-desktop');
  await page.close();
}, 60_000);
