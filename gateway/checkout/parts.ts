import { html, type SafeHtml } from './html';
import type { CheckoutModel } from './model';
import type { CheckoutStrings } from './strings';

/** Network code -> URL of its logo (local assets, gateway/checkout/assets/net-*.svg). */
export type Logos = Readonly<Record<string, string>>;

/** Whether the page asks the buyer to send something now (the instructions are shown). */
export function asksForPayment(m: CheckoutModel): boolean {
  return m.network !== null && (m.status === 'pending' || m.status === 'partially_paid');
}

/** While partially paid the buyer sends the rest: the headline amount is what is still due. */
export function headline(m: CheckoutModel): { amount: string; due: boolean } {
  return m.status === 'partially_paid' ? { amount: m.amountDue, due: true } : { amount: m.payAmount, due: false };
}

export function copyButton(target: string, label: string, s: CheckoutStrings): SafeHtml {
  // Hidden until the script runs: without it the button could do nothing.
  return html`<button type="button" class="copy" data-copy="${target}" aria-label="${label}" hidden>${s.copy}</button>`;
}
