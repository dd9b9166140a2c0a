import { status as GrpcStatus } from '@grpc/grpc-js';
import QRCode from 'qrcode';
import { dashboardMetadata } from './daemon';
import { cookie, FORM_COOKIE, newFormToken, readCookie, readForm, sameToken, sendPage, sendRedirect, SESSION_COOKIE } from './http';
import { isStatus, reasonOf, type Request } from './context';
import { messagePage, setupPage, signInPage, type PublicPage } from './pages-public';

/** The double-submit token of the public forms: the cookie's, or a new one set with the page. */
function formToken(r: Request): { token: string; cookies: string[] } {
  const existing = readCookie(r.req, FORM_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{32}$/.test(existing)) return { token: existing, cookies: r.cookies };
  const token = newFormToken();
  return { token, cookies: [...r.cookies, cookie(FORM_COOKIE, token, r.secure)] };
}

const pub = (r: Request, token: string): PublicPage => ({ s: r.s, style: r.style, path: r.path, formToken: token });

export async function getSignIn(r: Request): Promise<void> {
  const { token, cookies } = formToken(r);
  const ok = r.query.get('setup') === 'done' ? r.s.setupDone : undefined;
  const error = r.query.get('ended') ? r.s.sessionEnded : undefined;
  sendPage(r.res, 200, signInPage(pub(r, token), { ok, error }), cookies);
}

export async function postSignIn(r: Request): Promise<void> {
  const form = await readForm(r.req);
  const { token, cookies } = formToken(r);
  if (!sameToken(form.get('csrf') ?? undefined, readCookie(r.req, FORM_COOKIE))) return sendPage(r.res, 403, signInPage(pub(r, token), { error: r.s.formExpired }), cookies);
  const email = form.get('email') ?? '';
  try {
    const res = await r.daemon.call(
      r.daemon.dashboard,
      r.daemon.dashboard.signIn,
      { email, password: form.get('password') ?? '', totp_code: form.get('code') ?? '', client_address: r.clientAddress, user_agent: String(r.req.headers['user-agent'] ?? '') },
      dashboardMetadata(r.requestId),
    );
    // Max-Age: the session's absolute end; the daemon ends it sooner when idle.
    const maxAge = Math.max(0, Math.floor((Date.parse(res.session!.expires_at) - Date.now()) / 1000));
    sendRedirect(r.res, '/dashboard/overview', [...r.cookies, cookie(SESSION_COOKIE, res.session_token, r.secure, maxAge)]);
  } catch (err) {
    if (isStatus(err, GrpcStatus.UNAUTHENTICATED)) return sendPage(r.res, 401, signInPage(pub(r, token), { email, error: r.s.badCredentials }), cookies);
    if (isStatus(err, GrpcStatus.RESOURCE_EXHAUSTED)) return sendPage(r.res, 429, signInPage(pub(r, token), { email, error: r.s.locked }), cookies);
    throw err;
  }
}

async function setupModel(r: Request, setupToken: string) {
  const info = await r.daemon.call(r.daemon.dashboard, r.daemon.dashboard.getSetupInfo, { setup_token: setupToken }, dashboardMetadata(r.requestId));
  const svg = await QRCode.toString(info.otpauth_url, { type: 'svg', errorCorrectionLevel: 'M', margin: 1 });
  return { email: info.email, merchantName: info.merchant_name, secret: info.totp_secret, qrDataUrl: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

function invalidLink(r: Request): void {
  sendPage(r.res, 404, messagePage(r, r.s.setupHeading, r.s.setupLinkInvalid));
}

export async function getSetup(r: Request, setupToken: string): Promise<void> {
  const { token, cookies } = formToken(r);
  try {
    sendPage(r.res, 200, setupPage(pub(r, token), await setupModel(r, setupToken)), cookies);
  } catch (err) {
    if (isStatus(err, GrpcStatus.NOT_FOUND)) return invalidLink(r);
    throw err;
  }
}

export async function postSetup(r: Request, setupToken: string): Promise<void> {
  const form = await readForm(r.req);
  const { token, cookies } = formToken(r);
  const again = async (status: number, error: string) => sendPage(r.res, status, setupPage(pub(r, token), await setupModel(r, setupToken), error), cookies);
  try {
    if (!sameToken(form.get('csrf') ?? undefined, readCookie(r.req, FORM_COOKIE))) return await again(403, r.s.formExpired);
    await r.daemon.call(
      r.daemon.dashboard,
      r.daemon.dashboard.completeSetup,
      { setup_token: setupToken, password: form.get('password') ?? '', totp_code: form.get('code') ?? '', time_zone: form.get('time_zone') ?? '' },
      dashboardMetadata(r.requestId),
    );
    sendRedirect(r.res, '/dashboard/sign-in?setup=done', r.cookies);
  } catch (err) {
    if (isStatus(err, GrpcStatus.NOT_FOUND)) return invalidLink(r);
    const reason = reasonOf(err);
    if (reason === 'invalid_totp_code') return again(422, r.s.badCode);
    if (reason === 'password_too_short' || reason === 'password_too_long') return again(422, r.s.passwordTooShort);
    throw err;
  }
}
