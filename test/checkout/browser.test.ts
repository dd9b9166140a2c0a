import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { SCREENSHOTS } from './browser-support';
import { startStack, createMerchant, signed, rpc, type Stack, type MerchantCredentials } from '../support/stack';

/**
 * A buyer in a real browser (Debian's chromium, driven by playwright-core) against a real daemon
 * and gateway: choose TON, pay on devnet, watch confirming → paid arrive without a reload; an
 * expired invoice; a 404. Leaves phone-sized screenshots (flow-*.png) in browser-support.ts
 * SCREENSHOTS (outside the repository) and prints that path. Every status at phone and desktop
 * size: browser-states.test.ts.
 */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const ARTIFACTS = SCREENSHOTS;
const PHONE = { width: 390, height: 844 };
const SECRETS = { meta: 'meta-secret-b81e', webhook: 'https://hooks.example.com/wh-secret-0c4d' };

describe('checkout page in a browser', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  let context: BrowserContext;
  let userDataDir: string;

  beforeAll(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    process.stdout.write(`checkout screenshots: ${ARTIFACTS}\n`);
    userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-chromium-'));
    [stack, context] = await Promise.all([
      startStack(),
      chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
        viewport: PHONE,
        deviceScaleFactor: 2,
        isMobile: true,
        hasTouch: true,
        locale: 'en-US',
      }),
    ]);
    m = await createMerchant(stack);
  });
  afterAll(async () => {
    await context?.close();
    await stack?.stop();
    if (userDataDir) fs.rmSync(userDataDir, { recursive: true, force: true });
  });

  async function createInvoice(body: Record<string, unknown>): Promise<{ uuid: string; path: string }> {
    const res = await signed(stack, m, 'POST', '/v1/invoices', body);
    expect(res.status).toBe(201);
    return { uuid: res.body.uuid, path: new URL(res.body.checkout_url).pathname };
  }

  /** Opens the page and counts navigations, so "no reload" can be asserted two ways. */
  async function open(urlPath: string): Promise<{ page: Page; navigations: () => number }> {
    const page = await context.newPage();
    let navigations = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations++;
    });
    const response = await page.goto(stack.baseUrl + urlPath);
    expect(response!.status()).toBe(200);
    await page.evaluate('window.__checkoutMarker = "still here"');
    return { page, navigations: () => navigations };
  }

  const statusIs = (page: Page, status: string) => page.waitForSelector(`#status[data-status="${status}"]`, { timeout: 10_000 });
  const text = async (page: Page, selector: string) => ((await page.textContent(selector)) ?? '').trim();

  it('a buyer picks TON, sees address, memo and QR, pays, and sees confirming then paid without a reload', async () => {
    const inv = await createInvoice({
      amount: '12.5',
      title: 'Order #42',
      return_url: 'https://shop.example/thanks?order=42',
      cancel_url: 'https://shop.example/cart',
      webhook_url: SECRETS.webhook,
      metadata: { note: SECRETS.meta },
    });
    const { page, navigations } = await open(inv.path);
    expect(await text(page, 'h1')).toBe('Order #42');
    // Devnet: the buyer is told it is a test, visibly and to assistive technology (a note, in the title).
    const banner = page.getByRole('note');
    expect(await banner.isVisible()).toBe(true);
    expect(((await banner.textContent()) ?? '').trim()).toMatch(/^Test payment: no real funds\. This invoice runs on a simulated network \(devnet\)\./);
    expect(await page.title()).toBe('Test payment: Pay: Order #42');
    expect(await text(page, '#status-text')).toBe('Choose a network to see where to pay.');
    expect(await page.getAttribute('#cancel-link', 'href')).toBe('https://shop.example/cart');
    await page.screenshot({ path: path.join(ARTIFACTS, 'flow-choose-phone.png'), fullPage: true });
    // Light for a phone and self-contained: everything the page loaded came from the gateway itself,
    // and the document with its assets weighs well under 64 KiB (no external fonts, scripts or images).
    const weight = await page.evaluate<{ bytes: number; origins: string[] }>(`(() => {
      const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
      return { bytes: entries.reduce((n, e) => n + e.encodedBodySize, 0), origins: [...new Set(entries.map((e) => new URL(e.name).origin))] };
    })()`);
    expect(weight.origins).toEqual([new URL(stack.baseUrl).origin]);
    expect(weight.bytes).toBeGreaterThan(1024);
    expect(weight.bytes).toBeLessThan(64 * 1024);

    // Keyboard: focus the TON choice and press Enter.
    await page.getByRole('button', { name: /^TON\b/ }).focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('#address-value');
    expect(await page.evaluate('document.activeElement && document.activeElement.id')).toBe('panel-heading');

    const rest = (await signed(stack, m, 'GET', `/v1/invoices/${inv.uuid}`)).body;
    expect(rest).toMatchObject({ network: 'TON', status: 'pending' });
    expect(await text(page, '#address-value')).toBe(rest.address);
    expect(await text(page, '#memo-value')).toBe(rest.memo);
    expect(await text(page, '#amount-value')).toBe(rest.pay_amount);
    expect(await text(page, '#memo-warning')).toContain('The memo is required.');
    expect(await page.isVisible('.qr-code svg')).toBe(true);
    expect(await page.getAttribute('.qr-code', 'aria-label')).toBe(`QR code to pay ${rest.pay_amount} USDT on TON`);
    expect(await text(page, '#status-text')).toBe('Waiting for your payment.');

    // The copy buttons are keyboard-usable and say what they did.
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.baseUrl });
    await page.locator('button.copy[data-copy="memo-value"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForSelector('#copy-feedback:text-is("Copied to the clipboard.")', { state: 'attached' });
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(rest.memo);

    await page.screenshot({ path: path.join(ARTIFACTS, 'flow-pending-phone.png'), fullPage: true });

    await rpc((cb) => stack.clients.devnet.pay({ network: 'TON', to: rest.address, amount: rest.pay_amount, memo: rest.memo }, stack.operator, cb));
    await statusIs(page, 'confirming');
    expect(await text(page, '#status-text')).toMatch(/^Payment seen\. Confirming: \d+ of \d+ confirmations\.$/);
    expect(await page.$('#cancel-link')).toBeNull(); // no way "out" while the money is on its way

    await rpc((cb) => stack.clients.devnet.mine({ network: 'TON', blocks: rest.required_confirmations }, stack.operator, cb));
    await statusIs(page, 'paid');
    expect(await text(page, '#status-text')).toBe('Paid. Thank you!');
    expect(await text(page, '#panel-heading')).toBe('Payment received');
    expect(await page.getAttribute('#return-link', 'href')).toBe('https://shop.example/thanks?order=42');
    expect(await text(page, '#return-link')).toBe('Go back to merchant');
    expect(await page.isHidden('#countdown-line')).toBe(true);
    await page.screenshot({ path: path.join(ARTIFACTS, 'flow-paid-phone.png'), fullPage: true });

    // Never reloaded: the marker survived and the main frame navigated exactly once.
    expect(await page.evaluate('window.__checkoutMarker')).toBe('still here');
    expect(navigations()).toBe(1);

    const html = await page.content();
    expect(html).not.toContain(SECRETS.meta);
    expect(html).not.toContain(SECRETS.webhook);
    expect(html).not.toContain(m.merchantId);
    await page.close();
  });

  it('an open page turns expired when the invoice expires', async () => {
    const inv = await createInvoice({ amount: '3', network: 'TRC20', lifetime_minutes: 5, cancel_url: 'https://shop.example/cart' });
    const { page, navigations } = await open(inv.path);
    expect(await text(page, '#status-text')).toBe('Waiting for your payment.');
    expect(await text(page, '#countdown')).toMatch(/^0[45]:\d\d$/);
    await rpc((cb) => stack.clients.devnet.advanceTime({ seconds: '301' }, stack.operator, cb));
    await statusIs(page, 'expired');
    expect(await text(page, '#status-text')).toBe('Expired. Do not send a payment to this invoice.');
    expect(await text(page, '#panel-heading')).toBe('Invoice expired');
    expect(await page.$('#address-value')).toBeNull();
    expect(await text(page, '#cancel-link')).toBe('Return to merchant');
    await page.screenshot({ path: path.join(ARTIFACTS, 'flow-expired-phone.png'), fullPage: true });
    expect(await page.evaluate('window.__checkoutMarker')).toBe('still here');
    expect(navigations()).toBe(1);
    await page.close();
  });

  it('an unknown invoice gets a 404 page', async () => {
    const page = await context.newPage();
    const response = await page.goto(`${stack.baseUrl}/pay/00000000-0000-4000-8000-000000000000`);
    expect(response!.status()).toBe(404);
    expect(await text(page, 'h1')).toBe('Payment not found');
    expect(await page.title()).toBe('Payment not found');
    await page.close();
  });
});
