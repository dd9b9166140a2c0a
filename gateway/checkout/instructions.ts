import { html, type SafeHtml } from './html';
import type { CheckoutModel } from './model';
import { networkChoice, networkLogo } from './network-choice';
import { copyButton, headline, type Logos } from './parts';
import type { CheckoutStrings } from './strings';

/**
 * What to send and where (pending, partially paid): the "Open in wallet" button and the QR code
 * carry the same link (the daemon's wallet_link: after a partial payment, for the rest only),
 * then the address and, on a memo network (TON), the memo with its warning.
 *
 * The pay action comes first, in one block a phone shows without scrolling (390 × 844, under a
 * devnet banner: test/checkout/browser-fold.test.ts): the button, then the QR code beside the
 * address (and memo). The explanations follow it.
 */
export function instructions(m: CheckoutModel, s: CheckoutStrings, logos: Logos): SafeHtml {
  const network = m.network!;
  const { amount } = headline(m);
  const memo = m.memo !== null;
  const wallet = m.walletLink ? html`<p class="wallet"><a class="button primary wallet-link" id="wallet-link" href="${m.walletLink}" rel="noreferrer">${s.openInWallet}</a></p>` : '';
  const qr = m.qrSvg ? html`<figure class="qr"><div class="qr-code" role="img" aria-label="${s.qrLabel(amount, m.currency, network.name)}">${m.qrSvg}</div></figure>` : '';
  return html`<section class="card" id="instructions" aria-labelledby="panel-heading">
    <h2 id="panel-heading" tabindex="-1">${networkLogo(network.code, logos)}<span>${s.sendHeading(m.currency, network.name)}</span></h2>
    ${m.status === 'partially_paid' ? html`<p class="alert" id="remainder-note">${s.remainderHelp(m.amountDue, m.currency)}</p>` : ''}
    ${wallet}
    <div class="pay-grid${m.qrSvg ? '' : ' no-qr'}">
    ${qr}
    <dl class="fields">
      ${m.address ? html`<div class="field"><dt>${s.depositAddress}</dt><dd><code id="address-value" class="value">${m.address}</code>${copyButton('address-value', s.copyAddress, s)}</dd></div>` : ''}
      ${memo ? html`<div class="field field-memo"><dt>${s.memo}</dt><dd><code id="memo-value" class="value">${m.memo}</code>${copyButton('memo-value', s.copyMemo, s)}</dd></div>` : ''}
    </dl>
    </div>
    ${memo ? html`<div class="alert" id="memo-warning"><p><strong>${s.memoRequiredTitle}</strong> ${s.memoRequired}</p></div>` : ''}
    <p class="help">${s.sendOnly(m.currency, network.name)}</p>
    ${m.walletLink ? html`<p class="note" id="wallet-help">${memo ? s.openInWalletHelpMemo : s.openInWalletHelp}</p>` : ''}
    <p class="note" id="qr-help">${m.qrSvg ? (memo ? s.qrHelpMemo : s.qrHelp) : s.qrUnavailable}</p>
    <p class="note">${s.keepOpen}</p>
    ${m.canChooseNetwork ? html`<details class="change-network"><summary>${s.payOnAnotherNetwork}</summary>${networkChoice(m, s, logos)}</details>` : ''}
  </section>
  ${paymentsList(m, s)}`;
}

/** The full amount was seen: how far the confirmations are, and where to watch the payment. */
export function confirmingPanel(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  const required = Math.max(m.requiredConfirmations, 1);
  const done = Math.min(m.confirmations, required);
  return html`<section class="card confirming" id="confirming" aria-labelledby="panel-heading">
    <h2 id="panel-heading" tabindex="-1">${s.confirmingTitle}</h2>
    <p class="progress-line"><span id="confirmations-text">${s.confirmingProgress(m.confirmations, m.requiredConfirmations)}</span></p>
    <progress id="confirmations" max="${required}" value="${done}" aria-labelledby="confirmations-text"></progress>
    <p>${s.confirmingBody}</p>
  </section>
  ${paymentsList(m, s)}`;
}

/** Each payment seen, with its block-explorer link where the network has one. */
export function paymentsList(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  if (m.payments.length === 0) return html``;
  return html`<section class="card payments" id="payments" aria-labelledby="payments-heading">
    <h2 id="payments-heading">${s.paymentsHeading}</h2>
    <ul role="list">${m.payments.map(
      (p) => html`<li class="payment payment-${p.status}">
        <p><strong>${s.paymentAmount(p.amount, m.currency)}</strong> <span class="payment-status">${s.paymentStatus[p.status]}</span></p>
        <p class="tx">${s.transaction}: <code class="value">${p.txHash}</code></p>
        ${p.explorerUrl ? html`<p><a class="explorer-link" href="${p.explorerUrl}" rel="noreferrer noopener" target="_blank">${s.viewOnExplorer}</a></p>` : ''}
      </li>`,
    )}</ul>
  </section>`;
}
