import { html, type SafeHtml } from './html';
import type { CheckoutModel } from './model';
import type { CheckoutStrings } from './strings';

/** The final page: what happened, and (underpaid, overpaid, expired) whom to contact and what to quote. */
export function result(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  const r = s.result;
  const [title, body] =
    m.status === 'paid'
      ? [r.paidTitle, r.paidBody]
      : m.status === 'overpaid'
        ? [r.overpaidTitle, r.overpaidBody]
        : m.status === 'underpaid'
          ? [r.underpaidTitle, r.underpaidBody(m.amountDue, m.currency)]
          : m.status === 'canceled'
            ? [r.canceledTitle, r.canceledBody]
            : [r.expiredTitle, r.expiredBody];
  return html`<section class="card result result-${m.status ?? 'unknown'}" aria-labelledby="panel-heading">
    <h2 id="panel-heading" tabindex="-1">${title}</h2>
    <p>${body}</p>
    ${returnLink(m, s)}
  </section>
  ${m.status === 'paid' ? '' : contact(m, s)}`;
}

function contact(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  const c = s.contact;
  const merchant = m.merchant.name ?? c.theMerchant;
  const why = m.status === 'underpaid' ? c.underpaid(merchant) : m.status === 'overpaid' ? c.overpaid(merchant) : m.status === 'canceled' ? c.canceled(merchant) : c.expired(merchant);
  const ways = [
    m.merchant.supportUrl ? html`<li><a id="support-url" href="${m.merchant.supportUrl}" rel="noreferrer noopener" target="_blank">${c.supportPage}</a></li>` : '',
    m.merchant.supportMailto ? html`<li>${c.supportEmail}: <a id="support-email" href="${m.merchant.supportMailto}">${m.merchant.supportEmail}</a></li>` : '',
  ];
  const reachable = m.merchant.supportUrl !== null || m.merchant.supportMailto !== null;
  return html`<section class="card contact" id="contact" aria-labelledby="contact-heading">
    <h2 id="contact-heading">${c.heading}</h2>
    <p>${why}</p>
    <dl class="quote" aria-label="${c.quote}">
      <div><dt>${s.referenceLabel}</dt><dd><code id="quote-reference">${m.reference}</code></dd></div>
      ${m.orderId ? html`<div><dt>${s.orderLabel}</dt><dd><code id="quote-order">${m.orderId}</code></dd></div>` : ''}
      <div><dt>${s.invoiceIdLabel}</dt><dd><code id="quote-invoice" class="value">${m.uuid}</code></dd></div>
    </dl>
    ${reachable ? html`<ul class="support" role="list">${ways}</ul>` : html`<p class="note">${c.noContact(merchant)}</p>`}
  </section>`;
}

/**
 * After a payment (paid, overpaid, underpaid) the way back to the shop is return_url: in the result
 * card, right under what happened, so a phone shows it without scrolling (above the payments list).
 */
export function returnLink(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  const paidSomething = m.status === 'paid' || m.status === 'overpaid' || m.status === 'underpaid';
  if (!paidSomething || !m.returnUrl) return html``;
  return html`<nav class="actions" aria-label="${s.merchantLinks}"><a class="button primary" id="return-link" href="${m.returnUrl}" rel="noreferrer">${s.goBack}</a></nav>`;
}
