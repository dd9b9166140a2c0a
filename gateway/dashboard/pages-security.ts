import { html, type SafeHtml } from '../checkout/html';
import type { SessionInfo } from '../../src/grpc/generated/chainpay/v1/dashboard';
import { notice, page, time } from './layout';
import type { Signed } from './pages-invoices';

/** Password, two-step verification, time zone and the active sessions (with "sign out everywhere else"). */
export function securityPage(p: Signed, sessions: readonly SessionInfo[], state: { error?: string; ok?: string }): SafeHtml {
  const { s, viewer } = p;
  const csrf = html`<input type="hidden" name="csrf" value="${viewer.csrf}">`;
  return page(
    { s, title: s.security, style: p.style, path: p.path, viewer, section: 'security' },
    html`<h1>${s.security}</h1>
${notice('error', state.error)}${notice('ok', state.ok)}
<section class="card" aria-labelledby="pw-h"><h2 id="pw-h">${s.passwordHeading}</h2>
<form method="post" action="/dashboard/security/password">${csrf}
<input type="text" name="username" autocomplete="username" value="${viewer.email}" hidden>
<label for="current">${s.currentPassword}</label><input id="current" name="current_password" type="password" autocomplete="current-password" required>
<label for="new">${s.newPassword}</label><input id="new" name="new_password" type="password" autocomplete="new-password" minlength="12" required aria-describedby="new-hint"><p id="new-hint" class="hint">${s.passwordHint}</p>
<label for="pw-code">${s.totpCode}</label><input id="pw-code" name="code" inputmode="numeric" autocomplete="one-time-code" required>
<button type="submit">${s.changePassword}</button>
</form></section>
<section class="card" aria-labelledby="totp-h"><h2 id="totp-h">${s.totpHeading}</h2><p>${s.totpOn}</p></section>
<section class="card" aria-labelledby="tz-h"><h2 id="tz-h">${s.timeZone}</h2>
<form method="post" action="/dashboard/security/time-zone">${csrf}
<label for="tz">${s.timeZone}</label><input id="tz" name="time_zone" value="${viewer.timeZone}" list="zones" required>
<datalist id="zones">${Intl.supportedValuesOf('timeZone').map((z) => html`<option value="${z}"></option>`)}</datalist>
<button type="submit">${s.saveTimeZone}</button>
</form></section>
<section class="card" aria-labelledby="sessions-h"><h2 id="sessions-h">${s.sessionsHeading}</h2>
<ul class="sessions" id="sessions">${sessions.map(
      (x) =>
        html`<li><strong>${x.client_address}</strong>${x.current ? html` (${s.thisSession})` : ''}<br><span class="hint">${x.user_agent}</span><br>${s.lastSeen}: ${time(x.last_seen_at, s, viewer.timeZone)}</li>`,
    )}</ul>
<form method="post" action="/dashboard/security/sign-out-others">${csrf}<button type="submit">${s.signOutOthers}</button></form>
</section>`,
  );
}
