import type { IncomingMessage, ServerResponse } from 'node:http';
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import type { DashboardSession } from '../../src/grpc/generated/chainpay/v1/dashboard';
import { isServiceError } from '../errors';
import { dashboardMetadata, type DashboardDaemon } from './daemon';
import { cookie, readCookie, readForm, sameToken, sendRedirect, SESSION_COOKIE } from './http';
import type { Viewer } from './layout';
import type { Signed } from './pages-invoices';
import { dashboardStrings, type DashboardStrings } from './strings';

/** What every handler gets for one request. */
export interface Request {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly requestId: string;
  readonly s: DashboardStrings;
  readonly style: string;
  readonly daemon: DashboardDaemon;
  readonly secure: boolean;
  readonly clientAddress: string;
  readonly logger: Logger;
  /** Language cookie to set (a `?lang=` choice). */
  readonly cookies: string[];
}

export const LANG_COOKIE = 'cp_dash_lang';

export function stringsOf(req: IncomingMessage, query: URLSearchParams): DashboardStrings {
  return dashboardStrings(req.headers['accept-language'], query.get('lang') ?? readCookie(req, LANG_COOKIE));
}

/** The daemon's refusal code of a failed call ('' when none). */
export function reasonOf(err: unknown): string {
  if (!isServiceError(err)) return '';
  const v = (err as ServiceError).metadata?.get('chainpay-error-code')[0];
  return v === undefined ? '' : String(v);
}

export function isStatus(err: unknown, code: GrpcStatus): boolean {
  return isServiceError(err) && (err as ServiceError).code === code;
}

/** The signed-in user (the daemon checks the session on every call), or a redirect to sign-in. */
export async function signedIn(r: Request): Promise<{ signed: Signed; token: string; session: DashboardSession } | null> {
  const token = readCookie(r.req, SESSION_COOKIE);
  if (!token) {
    sendRedirect(r.res, '/dashboard/sign-in', r.cookies);
    return null;
  }
  try {
    const session = await r.daemon.call(r.daemon.dashboard, r.daemon.dashboard.getSession, {}, dashboardMetadata(r.requestId, token));
    const user = session.user!;
    const viewer: Viewer = { email: user.email, merchantName: session.merchant_name, timeZone: user.time_zone, csrf: session.csrf_token };
    return { signed: { s: r.s, style: r.style, path: r.path, viewer }, token, session };
  } catch (err) {
    if (!isStatus(err, GrpcStatus.UNAUTHENTICATED)) throw err;
    sendRedirect(r.res, '/dashboard/sign-in?ended=1', [...r.cookies, cookie(SESSION_COOKIE, '', r.secure, 0)]);
    return null;
  }
}

/** A signed-in form: its `csrf` field must be the session's token, else 403 and nothing happens. */
export async function signedForm(r: Request): Promise<{ signed: Signed; token: string; form: URLSearchParams } | 'refused' | null> {
  const form = await readForm(r.req);
  const me = await signedIn(r);
  if (!me) return null;
  if (!sameToken(form.get('csrf') ?? undefined, me.session.csrf_token)) return 'refused';
  return { signed: me.signed, token: me.token, form };
}
