import type { Page } from 'playwright-core';
import { startStack, createMerchant, signed, rpc, type Stack, type MerchantCredentials } from '../support/stack';
import { launchBrowsers, screenshot, SIZES, statusIs, type Browsers } from './browser-support';

/**
 * What a buyer sees on a phone (390 × 844) without scrolling (issue 51), on a devnet invoice (its
 * test banner on top) with a merchant name and an order id, as the walk-through's:
 * - pending: the pay action, i.e. "Open in wallet", the whole QR code and the deposit address
 *   (and on TON the memo), is above the fold;
 * - confirming: no expiry countdown (the payment is in, nothing can expire it now);
 * - paid: "Go back to merchant" is above the fold.
 */
const FOLD = SIZES.phone.viewport.height;

describe('checkout on a phone: what is above the fold', () => {
  let stack: Stack;
  let m: MerchantCredentials;
  let browsers: Browsers;

  beforeAll(async () => {
    [stack, browsers] = await Promise.all([startStack(), launchBrowsers()]);
    m = await createMerchant(stack, { name: 'My shop' });
    await rpc((cb) => stack.clients.merchants.updateMerchant({ merchant_id: m.merchantId, display_name: 'Tea Trading Company' }, stack.operator, cb));
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
  const pay = (network: string, to: string, amount: string, memo?: string) => rpc((cb) => stack.clients.devnet.pay({ network, to, amount, memo }, stack.operator, cb));
  const mine = (network: string, blocks: number) => rpc((cb) => stack.clients.devnet.mine({ network, blocks }, stack.operator, cb));

  async function open(uuid: string): Promise<Page> {
    const page = await browsers.contexts.phone.newPage();
    expect((await page.goto(`${stack.baseUrl}/pay/${uuid}`))!.status()).toBe(200);
    return page;
  }

  /** Each selector's box: its bottom edge (CSS px from the top of the page, unscrolled) and whether it is shown. */
  async function bottoms(page: Page, selectors: readonly string[]): Promise<Record<string, number>> {
    expect(await page.evaluate('window.scrollY')).toBe(0);
    const out: Record<string, number> = {};
    for (const selector of selectors) {
      const box = await page.locator(selector).boundingBox();
      expect({ selector, shown: box !== null }).toEqual({ selector, shown: true });
      out[selector] = Math.ceil(box!.y + box!.height);
    }
    return out;
  }
  const aboveFold = (b: Record<string, number>) => Object.fromEntries(Object.entries(b).map(([k, v]) => [k, v <= FOLD]));
  const allTrue = (b: Record<string, number>) => Object.fromEntries(Object.keys(b).map((k) => [k, true]));

  it('pending on TRC20 and on TON: Open in wallet, the whole QR code, the address (and the memo) without scrolling', async () => {
    const trc = await createInvoice({ amount: '25', network: 'TRC20', order_id: 'order-1', title: 'Coffee beans' });
    const ton = await createInvoice({ amount: '25', network: 'TON', order_id: 'order-2', title: 'Coffee beans' });
    for (const [inv, extra] of [
      [trc, []],
      [ton, ['#memo-value']],
    ] as const) {
      const page = await open(inv.uuid);
      await screenshot(page, `fold-pending-${inv.network.toLowerCase()}-phone`);
      expect(await page.isVisible('#test-banner')).toBe(true);
      const b = await bottoms(page, ['#wallet-link', '.qr-code svg', '#address-value', ...extra]);
      expect({ network: inv.network, fold: aboveFold(b), b }).toEqual({ network: inv.network, fold: allTrue(b), b });
      // The amount to send is on the first screen too, above the pay action.
      expect((await bottoms(page, ['#amount-value']))['#amount-value']).toBeLessThan(b['#wallet-link']!);
      await page.close();
    }
  });

  it('confirming: no countdown (shown on the pending page, gone once the payment is seen, also after a reload); paid: Go back to merchant above the fold', async () => {
    const inv = await createInvoice({ amount: '25', network: 'TRC20', order_id: 'order-3', title: 'Coffee beans', return_url: 'https://shop.example/orders/3' });
    const page = await open(inv.uuid);
    expect(await page.isVisible('#countdown')).toBe(true);
    await pay('TRC20', inv.address, inv.pay_amount);
    await statusIs(page, 'confirming');
    await page.waitForSelector('#countdown-line', { state: 'hidden' });
    const reloaded = await open(inv.uuid);
    await statusIs(reloaded, 'confirming');
    expect(await reloaded.isVisible('#countdown-line')).toBe(false);
    expect(await reloaded.isVisible('#countdown')).toBe(false);
    await screenshot(reloaded, 'fold-confirming-phone');

    await mine('TRC20', inv.required_confirmations);
    for (const p of [page, reloaded]) {
      await statusIs(p, 'paid');
      await p.evaluate('window.scrollTo(0, 0)');
      const b = await bottoms(p, ['#return-link']);
      expect({ fold: aboveFold(b), b }).toEqual({ fold: allTrue(b), b });
      expect(await p.getAttribute('#return-link', 'href')).toBe('https://shop.example/orders/3');
    }
    const fresh = await open(inv.uuid);
    const b = await bottoms(fresh, ['#return-link']);
    expect({ fold: aboveFold(b), b }).toEqual({ fold: allTrue(b), b });
    await screenshot(fresh, 'fold-paid-phone');
    for (const p of [page, reloaded, fresh]) await p.close();
  });
});
