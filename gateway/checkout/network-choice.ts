import { html, type SafeHtml } from './html';
import type { CheckoutModel, NetworkOption } from './model';
import type { Logos } from './parts';
import type { CheckoutStrings } from './strings';

/** The networks to choose from: a form that also works without the script (post and redirect). */
export function networkChoice(m: CheckoutModel, s: CheckoutStrings, logos: Logos): SafeHtml {
  if (!m.canChooseNetwork || m.networks.length === 0) return html`<p>${s.noNetworks}</p>`;
  return html`<p class="help">${s.chooseNetworkHelp}</p>
    <form class="networks" method="post" action="/pay/${m.uuid}/network?lang=${s.lang}" data-choose-network>
      <ul role="list">${m.networks.map((n) => networkButton(n, m, s, logos))}</ul>
      <p class="form-error" data-choose-error role="alert" hidden></p>
    </form>`;
}

/** The network's mark, decorative (its name is written next to it); nothing for a code without one. */
export function networkLogo(code: string, logos: Logos): SafeHtml {
  const url = Object.hasOwn(logos, code) ? logos[code] : undefined;
  return url ? html`<img class="net-logo" src="${url}" alt="" width="28" height="28" data-network-logo="${code}">` : html``;
}

function networkButton(n: NetworkOption, m: CheckoutModel, s: CheckoutStrings, logos: Logos): SafeHtml {
  const current = m.network?.code === n.code;
  const detail = n.available
    ? html`<span class="net-pay">${s.youSend(n.payAmount, m.currency)}</span><span class="net-fee">${s.networkFeeOf(n.networkFee, m.currency)}</span>`
    : html`<span class="net-fee">${s.belowMinimum(n.minInvoice, m.currency)}</span>`;
  return html`<li><button type="submit" name="network" value="${n.code}" class="network-option"${n.available && !current ? '' : html` disabled`}${current ? html` aria-current="true"` : ''}>
    ${networkLogo(n.code, logos)}<span class="net-text"><span class="net-name">${n.name}</span><span class="net-details">${detail}</span></span></button></li>`;
}
