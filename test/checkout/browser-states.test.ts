import type { Page } from 'playwright-core';
import { renderPaymentQr } from '../../src/views/payment-qr';
import { startStack, createMerchant, signed, rpc, type Stack, type MerchantCredentials } from '../support/stack';
import { fitsWidth, launchBrowsers, screenshot, SIZES, statusIs, text, type Browsers, type SizeName } from './browser-support';

/**
 * Every status of the checkout page in real Chromium, on a phone and on a desktop at once (two
 * pages on the same invoice, both updated live by the daemon): the "Open in wallet" link (the same
 * link as the QR code, the remainder's after a partial payment), the instructions hidden while
 * confirming, explorer links, whom to contact and what to quote, network logos, the language switch.
 * Screenshots of each state go to browser-support.ts SCREENSHOTS.
 */
type Pages = Readonly<Record<SizeName, Page>>;
const SIZE_NAMES = Object.keys(SIZES) as SizeName[];

describe('checkout states in a browser (phone and desktop)', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  let browsers: Browsers;

  beforeAll(async () => {
    [stack, browsers] = await Promise.all([startStack(), launchBrowsers()]);
    m = await createMerchant(stack, { name: 'Tea Trading Ltd' });
    await rpc((cb) =>
      stack.clients.merchants.updateMerchant({ merchant_id: m.merchantId, display_name: 'Tea Shop', support_url: 'https://tea.example/help', support_email: 'help@tea.example' }, stack.operator, cb),
    );
    // Devnet has no default explorer; explicit templates make the links testable here.
    for (const [code, url] of [
      ['TON', 'https://testnet.tonviewer.com/transaction/{tx}'],
      ['TRC20', 'https://nile.tronscan.org/#/transaction/{tx}'],
    ]) {
      await rpc((cb) => stack.clients.networks.updateNetworkFees({ code, explorer_tx_url: url }, stack.operator, cb));
    }
  });
  afterAll(async () => {
    await browsers?.close();
    await stack?.stop();
  });

  async function createInvoice(body: Record<string, unknown>): Promise<any> {
    const res = await signed(stack, m, 'POST', '/v1/invoices', body);
    expect(res.status).toBe(201);
    return res.body;
  }
  const rest = async (uuid: string) => (await signed(stack, m, 'GET', `/v1/invoices/${uuid}`)).body;
  const pay = (network: string, to: string, amount: string, memo?: string) => rpc((cb) => stack.clients.devnet.pay({ network, to, amount, memo }, stack.operator, cb));
  const mine = (network: string, blocks: number) => rpc((cb) => stack.clients.devnet.mine({ network, blocks }, stack.operator, cb));

  async function openBoth(uuid: string, on: Browsers = browsers): Promise<Pages> {
    const open = async (size: SizeName): Promise<Page> => {
      const page = await on.contexts[size].newPage();
      const response = await page.goto(`${stack.baseUrl}/pay/${uuid}`);
      expect(response!.status()).toBe(200);
      return page;
    };
    const [phone, desktop] = await Promise.all([open('phone'), open('desktop')]);
    return { phone, desktop };
  }
  async function onBoth(pages: Pages, check: (page: Page, size: SizeName) => Promise<void>): Promise<void> {
    for (const size of SIZE_NAMES) await check(pages[size], size);
  }
  /** Fits the width at both sizes, then a screenshot of each. */
  async function shoot(pages: Pages, state: string): Promise<void> {
    await onBoth(pages, async (page, size) => {
      expect(await fitsWidth(page)).toBe(true);
      await screenshot(page, `${state}-${size}`);
    });
  }
  const closeBoth = (pages: Pages) => Promise.all(SIZE_NAMES.map((size) => pages[size].close()));

  /** The QR code as the server rendered it, and the SVG the payment link encodes to (payment-qr.ts). */
  async function qrMatchesLink(uuid: string, link: string): Promise<void> {
    const raw = await (await fetch(`${stack.baseUrl}/pay/${uuid}`)).text();
    const svg = /<div class="qr-code" role="img" aria-label="[^"]*">(<svg[\s\S]*?<\/svg>)<\/div>/.exec(raw)?.[1];
    expect(svg).toBe((await renderPaymentQr(link)).trim().replace(/^<svg/, '<svg aria-hidden="true" focusable="false"'));
  }

  const header = async (page: Page, order: string | null, uuid: string) => {
    expect(await text(page, '#merchant-name')).toBe('Payment to Tea Shop');
    expect(await text(page, '#invoice-reference')).toBe(`${uuid.slice(0, 4)}-${uuid.slice(4, 8)}`.toUpperCase());
    if (order) expect(await text(page, '#invoice-order')).toBe(order);
  };

  it('network choice: the logos are the gateway’s own files, and they load', async () => {
    const inv = await createInvoice({ amount: '9', order_id: 'ORD-CHOOSE' });
    const pages = await openBoth(inv.uuid);
    await onBoth(pages, async (page) => {
      await header(page, 'ORD-CHOOSE', inv.uuid);
      await page.waitForFunction('[...document.querySelectorAll("img.net-logo")].every((i) => i.complete)');
      const logos = await page.evaluate<{ count: number; loaded: number; origins: string[] }>(`(() => {
        const imgs = [...document.querySelectorAll('img.net-logo')];
        const entries = [...performance.getEntriesByType('navigation'), ...performance.getEntriesByType('resource')];
        return { count: imgs.length, loaded: imgs.filter((i) => i.naturalWidth > 0).length, origins: [...new Set(entries.map((e) => new URL(e.name).origin))] };
      })()`);
      expect(logos.count).toBe(6);
      expect(logos.loaded).toBe(6);
      expect(logos.origins).toEqual([new URL(stack.baseUrl).origin]);
    });
    await shoot(pages, 'choose');
    await closeBoth(pages);
  });

  it('pending on TON: "Open in wallet" opens the QR code’s own link; the memo is asked for', async () => {
    const inv = await createInvoice({ amount: '12.5', network: 'TON', order_id: 'ORD-TON' });
    const pages = await openBoth(inv.uuid);
    const units = String(Math.round(Number(inv.pay_amount) * 1e6)); // 6-decimal jetton; test arithmetic only
    let href = '';
    await onBoth(pages, async (page, size) => {
      await header(page, 'ORD-TON', inv.uuid);
      href = (await page.getAttribute('#wallet-link', 'href'))!;
      expect(href).toMatch(new RegExp(`^ton://transfer/${inv.address}\\?jetton=[\\w-]+&amount=${units}&text=${inv.memo}$`));
      expect(await text(page, '#wallet-link')).toBe('Open in wallet');
      const box = (await page.locator('#wallet-link').boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(44); // a thumb-sized target
      if (size === 'phone') expect(box.width).toBeGreaterThan(SIZES.phone.viewport.width * 0.7);
      expect(await page.isVisible('#memo-warning')).toBe(true);
      expect(await text(page, '#qr-help')).toContain('the memo');
      expect(await page.isVisible('img[data-network-logo="TON"]')).toBe(true);
    });
    await qrMatchesLink(inv.uuid, href);
    await shoot(pages, 'pending-ton');
    await closeBoth(pages);
  });

  it('TRC20: no memo wording; partial payment → the remainder’s link and QR; full amount → instructions replaced by confirmations; then paid', async () => {
    const inv = await createInvoice({ amount: '10', network: 'TRC20', order_id: 'ORD-TRX', return_url: 'https://tea.example/thanks' });
    expect(inv.pay_amount).toBe('11.1');
    const pages = await openBoth(inv.uuid);
    await onBoth(pages, async (page) => {
      expect(await page.getAttribute('#wallet-link', 'href')).toMatch(new RegExp(`^tron:${inv.address}\\?token=T\\w+&amount=11\\.1$`));
      expect(((await page.textContent('body')) ?? '').toLowerCase()).not.toContain('memo'); // hidden text included
    });
    await shoot(pages, 'pending-trc20');

    await pay('TRC20', inv.address, '4');
    await mine('TRC20', inv.required_confirmations);
    let href = '';
    await onBoth(pages, async (page) => {
      await statusIs(page, 'partially_paid');
      await page.waitForFunction('/amount=7\\.1$/.test(document.getElementById("wallet-link")?.getAttribute("href") ?? "")');
      href = (await page.getAttribute('#wallet-link', 'href'))!;
      expect(href).toMatch(new RegExp(`^tron:${inv.address}\\?token=T\\w+&amount=7\\.1$`));
      expect(await text(page, '#amount-value')).toBe('7.1');
      expect(await page.isVisible('.qr-code svg')).toBe(true);
      expect(await text(page, '#remainder-note')).toContain('remaining 7.1 USDT');
      expect(await page.locator('#payments .explorer-link').count()).toBe(1);
    });
    await qrMatchesLink(inv.uuid, href);
    await shoot(pages, 'partially-paid');

    await pay('TRC20', inv.address, '7.1');
    const payments = () => rest(inv.uuid).then((r) => r.payments as { tx_hash: string }[]);
    await onBoth(pages, async (page) => {
      await statusIs(page, 'confirming');
      await page.waitForSelector('#confirming');
      for (const gone of ['#instructions', '#wallet-link', '.qr-code', '#address-value', '#amount-value + button.copy']) expect(await page.$(gone)).toBeNull();
      expect(await text(page, '#panel-heading')).toBe('Payment received, waiting for confirmations');
      expect(await text(page, '#confirmations-text')).toMatch(/^\d+ of \d+ confirmations$/);
      expect(await text(page, '#amount-heading')).toBe('Invoice total');
      await page.waitForFunction('document.querySelectorAll("#payments .explorer-link").length === 2');
      const links = await page.$$eval('#payments .explorer-link', (as) => as.map((a) => a.getAttribute('href')));
      expect(links.sort()).toEqual((await payments()).map((p) => `https://nile.tronscan.org/#/transaction/${encodeURIComponent(p.tx_hash)}`).sort());
    });
    await shoot(pages, 'confirming');

    await mine('TRC20', inv.required_confirmations);
    await onBoth(pages, async (page) => {
      await statusIs(page, 'paid');
      expect(await text(page, '#panel-heading')).toBe('Payment received');
      expect(await page.getAttribute('#return-link', 'href')).toBe('https://tea.example/thanks');
      expect(await page.$('#contact')).toBeNull();
      await header(page, 'ORD-TRX', inv.uuid);
    });
    await shoot(pages, 'paid');
    await closeBoth(pages);
  });

  it('overpaid: paid, and whom to contact about the difference', async () => {
    const inv = await createInvoice({ amount: '3', network: 'TON', order_id: 'ORD-OVER' });
    const pages = await openBoth(inv.uuid);
    await pay('TON', inv.address, '5', inv.memo);
    await mine('TON', inv.required_confirmations);
    await onBoth(pages, async (page) => {
      await statusIs(page, 'overpaid');
      expect(await text(page, '#contact')).toContain('About the difference, contact Tea Shop');
      expect(await text(page, '#quote-order')).toBe('ORD-OVER');
    });
    await shoot(pages, 'overpaid');
    await closeBoth(pages);
  });

  it('underpaid and expired: what to quote and whom to contact', async () => {
    const under = await createInvoice({ amount: '10', network: 'TRC20', order_id: 'ORD-UNDER', lifetime_minutes: 5 });
    const expired = await createInvoice({ amount: '10', network: 'TON', order_id: 'ORD-EXP', lifetime_minutes: 5, cancel_url: 'https://tea.example/cart' });
    const [underPages, expiredPages] = await Promise.all([openBoth(under.uuid), openBoth(expired.uuid)]);
    await pay('TRC20', under.address, '4');
    await mine('TRC20', under.required_confirmations);
    await onBoth(underPages, (page) => statusIs(page, 'partially_paid').then(() => undefined));
    await rpc((cb) => stack.clients.devnet.advanceTime({ seconds: '301' }, stack.operator, cb));

    for (const [pages, inv, status, why] of [
      [underPages, under, 'underpaid', 'To settle the missing amount or get a refund, contact Tea Shop'],
      [expiredPages, expired, 'expired', 'If you already sent a payment, or need a new invoice, contact Tea Shop'],
    ] as const) {
      await onBoth(pages, async (page) => {
        await statusIs(page, status);
        await header(page, inv.order_id, inv.uuid);
        expect(await text(page, '#contact')).toContain(why);
        expect(await text(page, '#quote-reference')).toBe(`${inv.uuid.slice(0, 4)}-${inv.uuid.slice(4, 8)}`.toUpperCase());
        expect(await text(page, '#quote-order')).toBe(inv.order_id);
        expect(await text(page, '#quote-invoice')).toBe(inv.uuid);
        expect(await page.getAttribute('#support-url', 'href')).toBe('https://tea.example/help');
        expect(await page.getAttribute('#support-email', 'href')).toBe('mailto:help@tea.example');
        for (const gone of ['#wallet-link', '.qr-code', '#address-value']) expect(await page.$(gone)).toBeNull();
      });
      await shoot(pages, status);
      await closeBoth(pages);
    }
  });

  it('language: Russian from Accept-Language, the switcher to Spanish, and live updates in Spanish', async () => {
    const inv = await createInvoice({ amount: '7', network: 'TON', order_id: 'ORD-LANG' });
    // A browser set to Russian: it sends Accept-Language ru-RU,ru.
    const russian = await launchBrowsers('ru-RU');
    const pages = await openBoth(inv.uuid, russian);
    await onBoth(pages, async (page) => {
      expect(await page.getAttribute('html', 'lang')).toBe('ru');
      expect(await text(page, '#status-text')).toBe('Ожидаем ваш платёж.');
      expect(await text(page, '#wallet-link')).toBe('Открыть в кошельке');
      expect(await page.getAttribute('#languages a[aria-current="true"]', 'data-lang')).toBe('ru');
    });
    await shoot(pages, 'language-ru');

    await onBoth(pages, async (page) => {
      await page.click('#languages a[data-lang="es"]');
      await page.waitForURL(/\?lang=es$/);
      expect(await page.getAttribute('html', 'lang')).toBe('es');
      expect(await text(page, '#status-text')).toBe('Esperando su pago.');
      expect(await text(page, '#wallet-link')).toBe('Abrir en la billetera');
      expect(await text(page, '#merchant-name')).toBe('Pago a Tea Shop');
    });
    await pay('TON', inv.address, inv.pay_amount, inv.memo);
    await onBoth(pages, async (page) => {
      await statusIs(page, 'confirming');
      expect(await text(page, '#panel-heading')).toBe('Pago recibido, esperando confirmaciones');
      expect(await text(page, '#status-text')).toMatch(/^Pago detectado\. Confirmando: \d+ de \d+ confirmaciones\.$/);
    });
    await shoot(pages, 'language-es-confirming');
    await closeBoth(pages);
    await russian.close();
  });
});
