import { html, type SafeHtml } from '../checkout/html';
import type { DashboardEvent, SearchInvoicesResponse } from '../../src/grpc/generated/chainpay/v1/dashboard';
import type { Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import type { Withdrawal } from '../../src/grpc/generated/chainpay/v1/withdrawals';
import { notice, page, time, type Viewer } from './layout';
import { fill, type DashboardStrings } from './strings';

export interface Signed {
  readonly s: DashboardStrings;
  readonly style: string;
  readonly path: string;
  readonly viewer: Viewer;
}

export interface InvoiceFilters {
  readonly status: string;
  readonly network: string;
  readonly from: string;
  readonly to: string;
  readonly q: string;
  readonly page: number;
}

export const INVOICE_STATUS_CHOICES = ['pending', 'confirming', 'paid', 'overpaid', 'underpaid', 'expired', 'cancelled'] as const;
export const NETWORK_CHOICES = ['TRC20', 'BEP20', 'TON', 'POLYGON', 'ARBITRUM', 'SOLANA'] as const;
export const PAGE_SIZE = 50;

const zone = (p: Signed): string => p.viewer.timeZone;

function invoiceRows(p: Signed, invoices: readonly Invoice[]): SafeHtml {
  const { s } = p;
  return html`<div class="table-wrap" tabindex="0" role="region" aria-label="${s.invoices}"><table>
<thead><tr><th scope="col">${s.created}</th><th scope="col">${s.orderId}</th><th scope="col">${s.status}</th><th scope="col">${s.network}</th><th scope="col" class="num">${s.amount}</th><th scope="col" class="num">${s.received}</th></tr></thead>
<tbody>${invoices.map(
    (i) =>
      html`<tr data-uuid="${i.uuid}"><td>${time(i.created_at, s, zone(p))}</td><td><a href="/dashboard/invoices/${i.uuid}">${i.order_id ?? i.uuid.slice(0, 8)}</a></td><td><span class="badge status-${i.status}">${i.status}</span></td><td>${i.network ?? ''}</td><td class="num">${i.amount}</td><td class="num">${i.received_amount}</td></tr>`,
  )}</tbody></table></div>`;
}

export function overviewPage(
  p: Signed,
  data: { available: string; held: string; invoices: readonly Invoice[]; payouts: readonly Withdrawal[]; receivedByNetwork: ReadonlyArray<readonly [string, string]> },
): SafeHtml {
  const { s } = p;
  return page(
    { s, title: s.overview, style: p.style, path: p.path, viewer: p.viewer, section: 'overview' },
    html`<h1>${s.overview}</h1>
<section class="cards" aria-label="${s.balance}">
<div class="card stat"><h2>${s.available}</h2><p class="big" id="available">${data.available} USDT</p></div>
<div class="card stat"><h2>${s.held}</h2><p class="big" id="held">${data.held} USDT</p></div>
</section>
<section class="card" aria-labelledby="by-network"><h2 id="by-network">${s.receivedByNetwork}</h2>
${data.receivedByNetwork.length ? html`<dl class="pairs">${data.receivedByNetwork.map(([n, a]) => html`<dt>${n}</dt><dd>${a} USDT</dd>`)}</dl>` : html`<p>${s.noInvoices}</p>`}
</section>
<section class="card" aria-labelledby="recent-invoices"><h2 id="recent-invoices">${s.last7Invoices}</h2>
${data.invoices.length ? invoiceRows(p, data.invoices) : html`<p>${s.noInvoices}</p>`}
</section>
<section class="card" aria-labelledby="recent-payouts"><h2 id="recent-payouts">${s.last7Payouts}</h2>
${
  data.payouts.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${s.last7Payouts}"><table><thead><tr><th scope="col">${s.created}</th><th scope="col">${s.reference}</th><th scope="col">${s.status}</th><th scope="col">${s.network}</th><th scope="col" class="num">${s.amount}</th></tr></thead><tbody>${data.payouts.map(
        (w) =>
          html`<tr><td>${time(w.created_at, s, zone(p))}</td><td>${w.reference ?? w.uuid.slice(0, 8)}</td><td><span class="badge">${w.status}</span></td><td>${w.network}</td><td class="num">${w.amount}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p>${s.noPayouts}</p>`
}
</section>`,
  );
}

export function filterQuery(f: InvoiceFilters, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries({ status: f.status, network: f.network, from: f.from, to: f.to, q: f.q, ...extra })) if (v) q.set(k, v);
  const text = q.toString();
  return text ? `?${text}` : '';
}

export function invoicesPage(p: Signed, f: InvoiceFilters, found: SearchInvoicesResponse, error?: string): SafeHtml {
  const { s } = p;
  const option = (value: string, current: string, label: string) => html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
  const filtered = f.status || f.network || f.from || f.to || f.q;
  const pages = Math.max(1, Math.ceil(found.total / PAGE_SIZE));
  return page(
    { s, title: s.invoices, style: p.style, path: p.path, viewer: p.viewer, section: 'invoices' },
    html`<h1>${s.invoices}</h1>
${notice('error', error)}
${found.hidden_newer > 0 ? html`<p class="notice warn" role="status" id="hidden-newer">${fill(s.hiddenNewer, { n: found.hidden_newer })} <a href="/dashboard/invoices">${s.showAll}</a></p>` : ''}
<form method="get" action="/dashboard/invoices" class="card filters">
<div class="field"><label for="f-status">${s.status}</label><select id="f-status" name="status">${option('', f.status, s.any)}${INVOICE_STATUS_CHOICES.map((v) => option(v, f.status, v))}</select></div>
<div class="field"><label for="f-network">${s.network}</label><select id="f-network" name="network">${option('', f.network, s.any)}${NETWORK_CHOICES.map((v) => option(v, f.network, v))}</select></div>
<div class="field"><label for="f-from">${s.from}</label><input id="f-from" name="from" type="date" value="${f.from}"></div>
<div class="field"><label for="f-to">${s.to}</label><input id="f-to" name="to" type="date" value="${f.to}"></div>
<div class="field wide"><label for="f-q">${s.search}</label><input id="f-q" name="q" type="search" value="${f.q}" aria-describedby="f-q-hint"><span id="f-q-hint" class="hint">${s.searchHint}</span></div>
<div class="actions"><button type="submit" class="primary">${s.filter}</button>${filtered ? html` <a href="/dashboard/invoices">${s.clearFilters}</a>` : ''} <a id="export-csv" href="/dashboard/invoices.csv${filterQuery(f)}">${s.exportCsv}</a></div>
</form>
<p id="total">${fill(s.total, { n: found.total })}</p>
${found.invoices.length ? invoiceRows(p, found.invoices) : html`<p>${s.noInvoices}</p>`}
${
  pages > 1
    ? html`<nav class="pager" aria-label="${s.invoices}">${f.page > 1 ? html`<a href="/dashboard/invoices${filterQuery(f, { page: String(f.page - 1) })}">${s.previous}</a>` : ''} <span>${f.page} / ${pages}</span> ${f.page < pages ? html`<a href="/dashboard/invoices${filterQuery(f, { page: String(f.page + 1) })}">${s.next}</a>` : ''}</nav>`
    : ''
}`,
  );
}

export function invoicePage(p: Signed, i: Invoice, events: readonly DashboardEvent[], explorers: Readonly<Record<string, string>>): SafeHtml {
  const { s } = p;
  const row = (label: string, value: SafeHtml | string | undefined) => (value ? html`<dt>${label}</dt><dd>${value}</dd>` : '');
  return page(
    { s, title: `${s.invoice} ${i.order_id ?? i.uuid}`, style: p.style, path: p.path, viewer: p.viewer, section: 'invoices' },
    html`<p><a href="/dashboard/invoices">← ${s.invoices}</a></p>
<h1>${s.invoice} ${i.order_id ?? ''} <span class="badge status-${i.status}" id="invoice-status">${i.status}</span></h1>
<section class="card"><dl class="pairs">
${row('UUID', html`<code>${i.uuid}</code>`)}
${row(s.amount, `${i.amount} ${i.currency}`)}
${row(s.received, `${i.received_amount} ${i.currency}`)}
${row(s.network, i.network)}
${row(s.address, i.address ? html`<code>${i.address}</code>` : undefined)}
${row(s.memo, i.memo ? html`<code>${i.memo}</code>` : undefined)}
${row(s.confirmations, i.network ? `${i.confirmations} / ${i.required_confirmations}` : undefined)}
${row(s.created, time(i.created_at, s, zone(p)))}
${row(s.expires, time(i.expires_at, s, zone(p)))}
${row(s.paidAt, time(i.paid_at, s, zone(p)))}
</dl></section>
<section class="card" aria-labelledby="payments-h"><h2 id="payments-h">${s.payments}</h2>
${
  i.payments.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${s.payments}"><table id="payments"><thead><tr><th scope="col">${s.txHash}</th><th scope="col" class="num">${s.amount}</th><th scope="col">${s.status}</th><th scope="col" class="num">${s.confirmations}</th><th scope="col" class="num">${s.block}</th></tr></thead><tbody>${i.payments.map(
        (pay) =>
          html`<tr><td><code class="hash">${explorers[pay.tx_hash] ? html`<a href="${explorers[pay.tx_hash]}" rel="noopener noreferrer">${pay.tx_hash}</a>` : pay.tx_hash}</code></td><td class="num">${pay.amount}</td><td>${pay.status}</td><td class="num">${pay.confirmations}</td><td class="num">${pay.block_height}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p>${s.noPayments}</p>`
}
</section>
<section class="card" aria-labelledby="events-h"><h2 id="events-h">${s.events}</h2>
${
  events.length
    ? html`<div class="table-wrap" tabindex="0" role="region" aria-label="${s.events}"><table id="events"><thead><tr><th scope="col">${s.created}</th><th scope="col">${s.eventType}</th><th scope="col">${s.delivery}</th><th scope="col" class="num">${s.attempts}</th></tr></thead><tbody>${events.map(
        (e) =>
          html`<tr><td>${time(e.created_at, s, zone(p))}</td><td>${e.type}</td><td>${e.status}${e.delivered_at ? html` (${time(e.delivered_at, s, zone(p))})` : ''}</td><td class="num">${e.attempts}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p>${s.noEvents}</p>`
}
</section>`,
  );
}
