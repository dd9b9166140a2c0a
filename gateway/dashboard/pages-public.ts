import { html, type SafeHtml } from '../checkout/html';
import { notice, page } from './layout';
import { fill, type DashboardStrings } from './strings';

export interface PublicPage {
  readonly s: DashboardStrings;
  readonly style: string;
  readonly path: string;
  readonly formToken: string;
}

export function signInPage(p: PublicPage, state: { email?: string; error?: string; ok?: string }): SafeHtml {
  const { s } = p;
  return page(
    { s, title: s.signInHeading, style: p.style, path: p.path },
    html`<section class="card narrow" aria-labelledby="h">
<h1 id="h">${s.signInHeading}</h1>
${notice('error', state.error)}${notice('ok', state.ok)}
<form method="post" action="/dashboard/sign-in">
<input type="hidden" name="csrf" value="${p.formToken}">
<label for="email">${s.email}</label>
<input id="email" name="email" type="email" autocomplete="username" required value="${state.email ?? ''}">
<label for="password">${s.password}</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="code">${s.totpCode}</label>
<input id="code" name="code" inputmode="numeric" pattern="[0-9 ]{6,7}" autocomplete="one-time-code" required>
<button type="submit" class="primary">${s.signIn}</button>
</form>
</section>`,
  );
}

export interface SetupModel {
  readonly email: string;
  readonly merchantName: string;
  readonly secret: string;
  /** The otpauth:// URL drawn as a QR code (an SVG data URL). */
  readonly qrDataUrl: string;
}

export function setupPage(p: PublicPage, m: SetupModel, error?: string): SafeHtml {
  const { s } = p;
  return page(
    { s, title: s.setupHeading, style: p.style, path: p.path },
    html`<section class="card narrow" aria-labelledby="h">
<h1 id="h">${s.setupHeading}</h1>
<p>${fill(s.setupIntro, { merchant: m.merchantName, email: m.email })}</p>
${notice('error', error)}
<img class="qr" src="${m.qrDataUrl}" alt="${s.setupQrAlt}" width="200" height="200">
<p>${s.setupSecret}: <code id="totp-secret" class="secret">${m.secret}</code></p>
<form method="post" action="${p.path}">
<input type="hidden" name="csrf" value="${p.formToken}">
<input type="hidden" name="time_zone" value="UTC">
<label for="password">${s.password}</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="12" required aria-describedby="password-hint">
<p id="password-hint" class="hint">${s.passwordHint}</p>
<label for="code">${s.totpCode}</label>
<input id="code" name="code" inputmode="numeric" pattern="[0-9 ]{6,7}" autocomplete="one-time-code" required>
<button type="submit" class="primary">${s.setupSubmit}</button>
</form>
</section>`,
  );
}

export function messagePage(p: { s: DashboardStrings; style: string; path: string }, title: string, text: string, link?: { href: string; label: string }): SafeHtml {
  return page(
    { s: p.s, title, style: p.style, path: p.path },
    html`<section class="card narrow"><h1>${title}</h1><p>${text}</p>${link ? html`<p><a href="${link.href}">${link.label}</a></p>` : ''}</section>`,
  );
}
