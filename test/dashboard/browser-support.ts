import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';

/** Screenshots of every dashboard page, outside the repository (CHAINPAY_DASHBOARD_SCREENSHOTS overrides). */
export const DASHBOARD_SCREENSHOTS = process.env.CHAINPAY_DASHBOARD_SCREENSHOTS ?? path.join(os.tmpdir(), 'chainpay-dashboard-screenshots');

export async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(DASHBOARD_SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(DASHBOARD_SCREENSHOTS, `${name}.png`), fullPage: true });
}

const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical violations on the page. The script is evaluated through the
 * DevTools protocol (not a <script> tag), so the page's CSP, which allows no script, stays on.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(`${AXE};0`);
  const found = await page.evaluate<Array<{ id: string; impact: string; nodes: number }>>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length })))`,
  );
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}, ${v.nodes})`);
}

/** No sideways scrolling. */
export async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth');
}
