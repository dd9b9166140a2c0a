import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's chromium driven by playwright-core: one phone-sized and one desktop-sized context, and
 * screenshots of each state written outside the repository, in $TMPDIR/chainpay-checkout-screenshots
 * (CHAINPAY_CHECKOUT_SCREENSHOTS overrides), for review.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SCREENSHOTS = process.env.CHAINPAY_CHECKOUT_SCREENSHOTS ?? path.join(os.tmpdir(), 'chainpay-checkout-screenshots');

export const SIZES = {
  phone: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  desktop: { viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false },
} as const;
export type SizeName = keyof typeof SIZES;

export interface Browsers {
  readonly contexts: Readonly<Record<SizeName, BrowserContext>>;
  close(): Promise<void>;
}

export async function launchBrowsers(locale = 'en-US'): Promise<Browsers> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  process.stdout.write(`checkout screenshots: ${SCREENSHOTS}\n`);
  const dirs: string[] = [];
  const launch = async (size: SizeName): Promise<BrowserContext> => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'chainpay-chromium-'));
    dirs.push(dir);
    return chromium.launchPersistentContext(dir, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
      ...SIZES[size],
      locale,
    });
  };
  const [phone, desktop] = await Promise.all([launch('phone'), launch('desktop')]);
  return {
    contexts: { phone, desktop },
    close: async () => {
      await Promise.all([phone.close(), desktop.close()]);
      for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const text = async (page: Page, selector: string): Promise<string> => ((await page.textContent(selector)) ?? '').trim();

export const statusIs = (page: Page, status: string) => page.waitForSelector(`#status[data-status="${status}"]`, { timeout: 15_000 });

/** Nothing wider than the viewport (no sideways scrolling on a phone). */
export async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}
