import { html, type HtmlValue, type SafeHtml } from '../checkout/html';
import { DASHBOARD_LANGUAGES, fill, type DashboardStrings } from './strings';

/** Who is signed in, as a page shows it. */
export interface Viewer {
  readonly email: string;
  readonly merchantName: string;
  readonly timeZone: string;
  readonly csrf: string;
}

export interface PageShell {
  readonly s: DashboardStrings;
  readonly title: string;
  readonly style: string;
  /** The current path (its language links keep it). */
  readonly path: string;
  readonly viewer?: Viewer;
  /** Which nav entry is current. */
  readonly section?: 'overview' | 'invoices' | 'security';
}

const NAV = [
  ['overview', '/dashboard/overview'],
  ['invoices', '/dashboard/invoices'],
  ['security', '/dashboard/security'],
] as const;

/** A dashboard page: a header with the merchant and the menu once signed in, the content, the language links. */
export function page(shell: PageShell, content: HtmlValue): SafeHtml {
  const { s, viewer } = shell;
  return html`<!doctype html>
<html lang="${s.lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${shell.title} · ${s.product}</title>
<link rel="stylesheet" href="${shell.style}">
</head>
<body>
<a class="skip" href="#main">${s.skip}</a>
<header class="top">
  <p class="brand">${s.product}${viewer ? html` · <span class="merchant">${viewer.merchantName}</span>` : ''}</p>
  ${
    viewer
      ? html`<nav aria-label="${s.nav}"><ul>${NAV.map(([key, href]) => html`<li><a href="${href}"${shell.section === key ? html` aria-current="page"` : ''}>${s[key]}</a></li>`)}</ul></nav>
  <form method="post" action="/dashboard/sign-out" class="sign-out"><input type="hidden" name="csrf" value="${viewer.csrf}"><span class="who">${viewer.email}</span> <button type="submit">${s.signOut}</button></form>`
      : ''
  }
</header>
<main id="main">
${content}
</main>
<footer class="foot">
  ${viewer ? html`<p class="zone">${fill(s.timesIn, { zone: viewer.timeZone })}</p>` : ''}
  <p class="languages"><span>${s.language}:</span> ${Object.keys(DASHBOARD_LANGUAGES).map((tag) => (tag === s.lang ? html`<strong lang="${tag}">${tag}</strong> ` : html`<a lang="${tag}" href="${shell.path}${shell.path.includes('?') ? '&' : '?'}lang=${tag}">${tag}</a> `))}</p>
</footer>
</body>
</html>`;
}

/** A notice above a form or a list: role=alert for errors, role=status for confirmations. */
export function notice(kind: 'error' | 'ok', text: string | undefined): SafeHtml | '' {
  if (!text) return '';
  return kind === 'error' ? html`<p class="notice error" role="alert">${text}</p>` : html`<p class="notice ok" role="status">${text}</p>`;
}

/** A time in the user's zone, with the instant in `datetime`. */
export function time(iso: string | undefined, s: DashboardStrings, zone: string): SafeHtml | '' {
  if (!iso) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  const text = new Intl.DateTimeFormat(s.lang, { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(at);
  return html`<time datetime="${at.toISOString()}">${text}</time>`;
}
