import { html, type SafeHtml } from './html';
export type { Logos } from './parts';
import { confirmingPanel, instructions, paymentsList } from './instructions';
import type { CheckoutModel } from './model';
import { networkChoice } from './network-choice';
import { result } from './outcome';
import { asksForPayment, copyButton, headline, type Logos } from './parts';
import type { CheckoutStrings } from './strings';

/**
 * The parts of the page that change while the buyer watches. The server renders them for the
 * first page and again for every pushed update; the browser swaps a region's markup only when it
 * changed. The status line is text (an aria-live region), not markup.
 */
export interface CheckoutRegions {
  readonly summary: SafeHtml;
  readonly panel: SafeHtml;
  readonly actions: SafeHtml;
}

export function renderRegions(m: CheckoutModel, s: CheckoutStrings, logos: Logos): CheckoutRegions {
  return { summary: summary(m, s), panel: panel(m, s, logos), actions: actions(m, s) };
}

export function statusText(m: CheckoutModel, s: CheckoutStrings): string {
  switch (m.status) {
    case 'pending':
      return m.network ? s.status.pending : s.status.chooseNetwork;
    case 'confirming':
      return s.status.confirming(m.confirmations, m.requiredConfirmations);
    case 'partially_paid':
      return s.status.partiallyPaid(m.amountDue, m.currency);
    case 'paid':
      return s.status.paid;
    case 'overpaid':
      return s.status.overpaid;
    case 'underpaid':
      return s.status.underpaid(m.amountDue, m.currency);
    case 'expired':
      return s.status.expired;
    case 'canceled':
      return s.status.canceled;
    case null:
      return s.status.unknown;
  }
}

function summary(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  const { amount, due } = headline(m);
  const asking = asksForPayment(m);
  const breakdown = m.fees
    ? html`<dl class="breakdown" aria-label="${s.breakdown}">
        <div><dt>${s.amount}</dt><dd>${m.amount} ${m.currency}</dd></div>
        <div><dt>${s.platformFee}</dt><dd>${m.fees.platformFee} ${m.currency}</dd></div>
        <div><dt>${s.networkFee}</dt><dd>${m.network ? `${m.fees.networkFee} ${m.currency}` : s.networkFeeDepends}</dd></div>
        ${m.receivedAmount !== '0' ? html`<div><dt>${s.received}</dt><dd>${m.receivedAmount} ${m.currency}</dd></div>` : ''}
      </dl>`
    : html`<p class="note">${s.feesPaidByMerchant}</p>`;
  // Once nothing more is asked (confirming, final) the figure is the invoice's, not one to send.
  const heading = !asking && m.network ? s.invoiceTotal : due ? s.amountStillDue : m.network ? s.amountToSend : s.amountHeading;
  return html`<h2 id="amount-heading" class="eyebrow">${heading}</h2>
    <p class="amount"><span class="figure"><span id="amount-value">${amount}</span> <span class="currency">${m.currency}</span></span>${asking ? copyButton('amount-value', s.copyAmount, s) : ''}</p>
    ${m.network ? html`<p class="on-network">${s.onNetwork(m.network.name)}</p>` : ''}
    ${breakdown}`;
}

function panel(m: CheckoutModel, s: CheckoutStrings, logos: Logos): SafeHtml {
  if (m.final) return html`${result(m, s)}${paymentsList(m, s)}`;
  if (m.network === null) {
    return html`<section class="card" aria-labelledby="panel-heading">
      <h2 id="panel-heading" tabindex="-1">${s.chooseNetworkHeading}</h2>
      ${networkChoice(m, s, logos)}
    </section>`;
  }
  // The full amount was seen: nothing to send, so no amount, QR, address or memo to invite a second payment.
  if (m.status === 'confirming') return confirmingPanel(m, s);
  return instructions(m, s, logos);
}

/**
 * Before anything was sent, or when the invoice expired empty, the way back is cancel_url. After a
 * payment it is return_url, in the result card (outcome.ts returnLink). Nothing while money is on its way.
 */
function actions(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  const unpaid = m.status === 'pending' || m.status === 'expired' || m.status === 'canceled';
  const link =
    unpaid && m.cancelUrl
      ? html`<a class="button" id="cancel-link" href="${m.cancelUrl}" rel="noreferrer">${m.status === 'expired' || m.status === 'canceled' ? s.returnToMerchant : s.cancel}</a>`
      : '';
  return link ? html`<nav aria-label="${s.merchantLinks}">${link}</nav>` : html``;
}
