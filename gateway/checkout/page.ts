import { html, jsonForScript, type SafeHtml } from './html';
import type { CheckoutModel } from './model';
import { renderRegions, statusText, type Logos } from './regions';
import { LANGUAGES, type CheckoutStrings } from './strings';
import { formatRemaining, showsCountdown } from './time';
import { regionHashes } from './update';

/** Versioned asset URLs (`?v=<content hash>`), so they can be cached for long. */
export interface AssetUrls {
  readonly script: string;
  readonly style: string;
  /** Network code -> logo URL. */
  readonly logos: Logos;
}

/** What the page script needs: its endpoints, the countdown start and its few words. */
export interface ClientBoot {
  readonly uuid: string;
  readonly events: string;
  readonly choose: string;
  readonly remaining_ms: number;
  readonly final: boolean;
  /** The countdown line is shown (time.ts showsCountdown). */
  readonly countdown: boolean;
  /** Of the regions as rendered in the page, to compare with the pushed ones. */
  readonly hashes: Readonly<Record<string, string>>;
  readonly strings: Readonly<Record<string, string>>;
}

export function clientStrings(s: CheckoutStrings): Record<string, string> {
  return {
    copied: s.copied,
    copiedShort: s.copiedShort,
    copy: s.copy,
    copyFailed: s.copyFailed,
    expiring: s.expiring,
    daysShort: s.daysShort,
    liveLost: s.liveLost,
    choosing: s.choosing,
    chooseFailed: s.chooseFailed,
  };
}

export function renderCheckoutPage(m: CheckoutModel, s: CheckoutStrings, assets: AssetUrls): SafeHtml {
  const regions = renderRegions(m, s, assets.logos);
  const remaining = m.remainingMs;
  const boot: ClientBoot = {
    uuid: m.uuid,
    // The page's language rides along, so pushed regions and refusals are in the same one.
    events: `/pay/${m.uuid}/events?lang=${s.lang}`,
    choose: `/pay/${m.uuid}/network?lang=${s.lang}`,
    remaining_ms: remaining,
    final: m.final,
    countdown: showsCountdown(m),
    hashes: regionHashes(regions),
    strings: clientStrings(s),
  };
  const body = html`<div class="status-card" id="status-card">
      <h2 class="visually-hidden">${s.statusHeading}</h2>
      <p id="status" role="status" aria-atomic="true" data-status="${m.status ?? 'unknown'}"><span class="dot" aria-hidden="true"></span><span id="status-text">${statusText(m, s)}</span></p>
      <p class="countdown" id="countdown-line"${showsCountdown(m) ? '' : html` hidden`}>${s.timeLeft} <time id="countdown" role="timer" aria-live="off" datetime="${m.expiresAt}">${formatRemaining(remaining, s)}</time></p>
      <p class="live-note" id="live-note" hidden></p>
      <noscript><p class="note">${s.noscript}</p></noscript>
    </div>
    <section class="card summary" id="region-summary" aria-labelledby="amount-heading">${regions.summary}</section>
    <div id="region-panel">${regions.panel}</div>
    <div class="actions" id="region-actions">${regions.actions}</div>
    <p class="visually-hidden" id="copy-feedback" role="status"></p>
    <script type="application/json" id="checkout-boot">${jsonForScript(boot)}</script>`;
  const documentTitle = m.livemode ? s.documentTitle(m.title) : s.testTitle(s.documentTitle(m.title));
  return layout(s, documentTitle, m.title ?? s.defaultTitle, body, assets, m.status ?? 'unknown', m.livemode ? null : testBanner(s), invoiceLine(m, s));
}

/**
 * Who is paid and what to quote, on every page of an invoice: the merchant's display name, the
 * short reference and the order id. Never changes while the page is open.
 */
function invoiceLine(m: CheckoutModel, s: CheckoutStrings): SafeHtml {
  return html`${m.merchant.name ? html`<p class="merchant" id="merchant-name">${s.paymentTo(m.merchant.name)}</p>` : ''}
<dl class="invoice-ids">
<div><dt>${s.referenceLabel}</dt><dd id="invoice-reference">${m.reference}</dd></div>
${m.orderId ? html`<div><dt>${s.orderLabel}</dt><dd id="invoice-order">${m.orderId}</dd></div>` : ''}
</dl>`;
}

/** Links to the same page in each language (`?lang=`): plain links, so they work without the script. */
function languageSwitcher(s: CheckoutStrings): SafeHtml {
  return html`<nav class="languages" id="languages" aria-label="${s.languageSwitcher}"><ul role="list">${Object.values(LANGUAGES).map(
    (l) => html`<li><a href="?lang=${l.lang}" hreflang="${l.lang}" lang="${l.lang}" data-lang="${l.lang}"${l.lang === s.lang ? html` aria-current="true"` : ''}>${l.languageName}</a></li>`,
  )}</ul></nav>`;
}

/**
 * A devnet invoice says it is a test, first thing in the header (read before the amount by a
 * screen reader too); text, not colour alone. It never changes while the page is open.
 */
function testBanner(s: CheckoutStrings): SafeHtml {
  return html`<p class="test-banner" id="test-banner" role="note"><strong>${s.testBannerTitle}</strong> ${s.testBannerBody}</p>`;
}

/** The 404 and error pages: same look, no script, nothing about any invoice. */
export function renderMessagePage(s: CheckoutStrings, assets: AssetUrls, opts: { title: string; body: string; requestId?: string; back?: string }): SafeHtml {
  const body = html`<section class="card result" aria-labelledby="panel-heading">
      <h2 id="panel-heading">${opts.title}</h2>
      <p>${opts.body}</p>
      ${opts.requestId ? html`<p class="note">${s.reference(opts.requestId)}</p>` : ''}
      ${opts.back ? html`<p><a class="button" href="${opts.back}">${s.backToPayment}</a></p>` : ''}
    </section>`;
  return layout(s, opts.title, opts.title, body, { style: assets.style, script: null }, 'message');
}

function layout(
  s: CheckoutStrings,
  documentTitle: string,
  heading: string,
  main: SafeHtml,
  assets: { style: string; script: string | null },
  status: string,
  banner: SafeHtml | null = null,
  ids: SafeHtml | null = null,
): SafeHtml {
  return html`<!doctype html>
<html lang="${s.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<meta name="color-scheme" content="light dark">
<title>${documentTitle}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${assets.style}">
${assets.script ? html`<script src="${assets.script}" defer></script>` : ''}
</head>
<body data-status="${status}">
<a class="skip-link" href="#main">${s.skipToContent}</a>
<header class="page-header">
${banner ?? ''}
<p class="eyebrow">${s.securePayment}</p>
${languageSwitcher(s)}
<h1 id="page-title">${heading}</h1>
${ids ?? ''}
</header>
<main id="main" tabindex="-1">
${main}
</main>
</body>
</html>
`;
}
