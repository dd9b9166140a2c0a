import type { CheckoutStrings } from './strings';

/** Milliseconds until expiry by the gateway's clock: the page counts down from this, not from the browser's clock. */
export function remainingMs(expiresAt: string, now = Date.now()): number {
  const at = Date.parse(expiresAt);
  return Number.isFinite(at) ? Math.max(0, at - now) : 0;
}

/** "59:07", "1:02:03", "2 d 3:04:05" (checkout.js formats the same way). */
export function formatRemaining(ms: number, s: CheckoutStrings): string {
  const total = Math.ceil(ms / 1000);
  const days = Math.floor(total / 86_400);
  const pad = (n: number) => String(n).padStart(2, '0');
  const hours = Math.floor((total % 86_400) / 3600);
  const clock = `${pad(Math.floor((total % 3600) / 60))}:${pad(total % 60)}`;
  if (days > 0) return `${days} ${s.daysShort} ${hours}:${clock}`;
  return hours > 0 ? `${hours}:${clock}` : clock;
}

/**
 * Whether the page counts down to expiry: only while a payment is still asked for. Not when final,
 * and not while confirming: the full amount was seen in time, so the expiry no longer applies
 * (a reverted payment brings the invoice, and the countdown, back). checkout.js follows `countdown`.
 */
export function showsCountdown(m: { readonly final: boolean; readonly status: string | null }): boolean {
  return !m.final && m.status !== 'confirming';
}
