import { createHash } from 'node:crypto';
import type { CheckoutModel } from './model';
import { toBuyerJson } from './model';
import { renderRegions, statusText, type CheckoutRegions, type Logos } from './regions';
import { showsCountdown } from './time';
import type { CheckoutStrings } from './strings';

type RegionName = keyof CheckoutRegions;

/**
 * One state of the page, as pushed on `/pay/<uuid>/events` and answered by POST
 * `/pay/<uuid>/network`: the buyer's JSON plus the server-rendered regions the script swaps in.
 * `hashes` lets the script swap only the regions that changed (and keep the buyer's focus).
 */
export interface CheckoutUpdate {
  readonly invoice: Record<string, unknown>;
  readonly status: string;
  readonly final: boolean;
  /** The countdown line is shown: not when final, not while confirming (time.ts showsCountdown). */
  readonly countdown: boolean;
  readonly status_text: string;
  readonly remaining_ms: number;
  readonly regions: Readonly<Record<RegionName, string>>;
  readonly hashes: Readonly<Record<RegionName, string>>;
}

export function regionHashes(r: CheckoutRegions): Record<RegionName, string> {
  const hash = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 16);
  return { summary: hash(r.summary.value), panel: hash(r.panel.value), actions: hash(r.actions.value) };
}

export function checkoutUpdate(m: CheckoutModel, s: CheckoutStrings, logos: Logos): CheckoutUpdate {
  const r = renderRegions(m, s, logos);
  return {
    invoice: toBuyerJson(m),
    status: m.status ?? 'unknown',
    final: m.final,
    countdown: showsCountdown(m),
    status_text: statusText(m, s),
    remaining_ms: m.remainingMs,
    regions: { summary: r.summary.value, panel: r.panel.value, actions: r.actions.value },
    hashes: regionHashes(r),
  };
}
