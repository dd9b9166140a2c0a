import { html, type SafeHtml } from './html';
import type { CheckoutModel, NetworkOption } from './model';
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

export function renderRegions(m: CheckoutModel, s: CheckoutStrings): CheckoutRegions {
  return { summary: summary(m, s), panel: panel(m, s), actions: actions(m, s) };
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
    case null:
      return s.status.unknown;
  }
}

/** While partially paid the buyer sends the rest: the headline amount is what is still due. */
function headline(m: CheckoutModel): { amount: string; due: boolean } {
  return m.status === 'partially_paid' ? { amount: m.amountDue, due: true } : { amount: m.payAmount, due: false };
}

function summary(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  const { amount, due } = headline(m);
  const copyable = m.network !== null && !m.final;
  const breakdown = m.fees
    ? html`<dl class="breakdown" aria-label="${s.breakdown}">
        <div><dt>${s.amount}</dt><dd>${m.amount} ${m.currency}</dd></div>
        <div><dt>${s.platformFee}</dt><dd>${m.fees.platformFee} ${m.currency}</dd></div>
        <div><dt>${s.networkFee}</dt><dd>${m.network ? `${m.fees.networkFee} ${m.currency}` : s.networkFeeDepends}</dd></div>
        ${m.receivedAmount !== '0' ? html`<div><dt>${s.received}</dt><dd>${m.receivedAmount} ${m.currency}</dd></div>` : ''}
      </dl>`
    : html`<p class="note">${s.feesPaidByMerchant}</p>`;
  const heading = m.final ? s.invoiceTotal : due ? s.amountStillDue : m.network ? s.amountToSend : s.amountHeading;
  return html`<h2 id="amount-heading" class="eyebrow">${heading}</h2>
    <p class="amount"><span class="figure"><span id="amount-value">${amount}</span> <span class="currency">${m.currency}</span></span>${copyable ? copyButton('amount-value', s.copyAmount, s) : ''}</p>
    ${m.network ? html`<p class="on-network">${s.onNetwork(m.network.name)}</p>` : ''}
    ${breakdown}`;
}

function panel(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  if (m.final) return result(m, s);
  if (m.network === null) {
    return html`<section class="card" aria-labelledby="panel-heading">
      <h2 id="panel-heading" tabindex="-1">${s.chooseNetworkHeading}</h2>
      ${networkChoice(m, s)}
    </section>`;
  }
  return instructions(m, s);
}

function networkChoice(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  if (!m.canChooseNetwork || m.networks.length === 0) return html`<p>${s.noNetworks}</p>`;
  return html`<p class="help">${s.chooseNetworkHelp}</p>
    <form class="networks" method="post" action="/pay/${m.uuid}/network" data-choose-network>
      <ul role="list">${m.networks.map((n) => networkButton(n, m, s))}</ul>
      <p class="form-error" data-choose-error role="alert" hidden></p>
    </form>`;
}

function networkButton(n: NetworkOption, m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  const current = m.network?.code === n.code;
  const detail = n.available
    ? html`<span class="net-pay">${s.youSend(n.payAmount, m.currency)}</span><span class="net-fee">${s.networkFeeOf(n.networkFee, m.currency)}</span>`
    : html`<span class="net-fee">${s.belowMinimum(n.minInvoice, m.currency)}</span>`;
  return html`<li><button type="submit" name="network" value="${n.code}" class="network-option"${n.available && !current ? '' : html` disabled`}${current ? html` aria-current="true"` : ''}>
    <span class="net-name">${n.name}</span><span class="net-details">${detail}</span></button></li>`;
}

function instructions(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  const network = m.network!;
  const { amount } = headline(m);
  // The daemon's QR encodes the full pay_amount: after a partial payment it would ask for too much.
  const qr =
    m.status === 'partially_paid'
      ? html`<p class="note">${s.qrTopUp}</p>`
      : m.qrSvg
        ? html`<figure class="qr"><div class="qr-code" role="img" aria-label="${s.qrLabel(amount, m.currency, network.name)}">${m.qrSvg}</div><figcaption>${s.qrHelp}</figcaption></figure>`
        : html`<p class="note">${s.qrUnavailable}</p>`;
  return html`<section class="card" aria-labelledby="panel-heading">
    <h2 id="panel-heading" tabindex="-1">${s.sendHeading(m.currency, network.name)}</h2>
    <p class="help">${s.sendOnly(m.currency, network.name)}</p>
    ${qr}
    <dl class="fields">
      ${m.address ? html`<div class="field"><dt>${s.depositAddress}</dt><dd><code id="address-value" class="value">${m.address}</code>${copyButton('address-value', s.copyAddress, s)}</dd></div>` : ''}
      ${m.memo ? html`<div class="field field-memo"><dt>${s.memo}</dt><dd><code id="memo-value" class="value">${m.memo}</code>${copyButton('memo-value', s.copyMemo, s)}</dd></div>` : ''}
    </dl>
    ${m.memo ? html`<div class="alert" id="memo-warning"><p><strong>${s.memoRequiredTitle}</strong> ${s.memoRequired}</p></div>` : ''}
    ${m.txHash ? html`<p class="tx">${s.transaction}: <code class="value">${m.txHash}</code></p>` : ''}
    <p class="note">${s.keepOpen}</p>
    ${m.canChooseNetwork ? html`<details class="change-network"><summary>${s.payOnAnotherNetwork}</summary>${networkChoice(m, s)}</details>` : ''}
  </section>`;
}

function result(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  const r = s.result;
  const [title, body] =
    m.status === 'paid'
      ? [r.paidTitle, r.paidBody]
      : m.status === 'overpaid'
        ? [r.overpaidTitle, r.overpaidBody]
        : m.status === 'underpaid'
          ? [r.underpaidTitle, r.underpaidBody(m.amountDue, m.currency)]
          : [r.expiredTitle, r.expiredBody];
  return html`<section class="card result result-${m.status ?? 'unknown'}" aria-labelledby="panel-heading">
    <h2 id="panel-heading" tabindex="-1">${title}</h2>
    <p>${body}</p>
    ${m.txHash ? html`<p class="tx">${s.transaction}: <code class="value">${m.txHash}</code></p>` : ''}
  </section>`;
}

/**
 * After payment (or a final partial one) the way back is return_url; before anything was sent, or
 * when the invoice expired empty, it is cancel_url. Nothing while money is on its way.
 */
function actions(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  const paidSomething = m.status === 'paid' || m.status === 'overpaid' || m.status === 'underpaid';
  const unpaid = m.status === 'pending' || m.status === 'expired';
  const link =
    paidSomething && m.returnUrl
      ? html`<a class="button primary" id="return-link" href="${m.returnUrl}" rel="noreferrer">${s.goBack}</a>`
      : unpaid && m.cancelUrl
        ? html`<a class="button" id="cancel-link" href="${m.cancelUrl}" rel="noreferrer">${m.status === 'expired' ? s.returnToMerchant : s.cancel}</a>`
        : '';
  return link ? html`<nav aria-label="${s.merchantLinks}">${link}</nav>` : html``;
}

function copyButton(target: string, label: string, s: CheckoutStrings): SafeHtml {
  // Hidden until the script runs: without it the button could do nothing.
  return html`<button type="button" class="copy" data-copy="${target}" aria-label="${label}" hidden>${s.copy}</button>`;
}
