import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { ChannelCredentials } from '@grpc/grpc-js';
import type { Logger } from 'pino';
import { HttpError, toHttpError } from '../errors';
import type { ClientKey } from '../client-key';
import { LANG_COOKIE, stringsOf, type Request } from './context';
import { DashboardDaemon } from './daemon';
import { cookie, sendPage, sendRedirect, setDashboardHeaders, readCookie, SESSION_COOKIE } from './http';
import { messagePage } from './pages-public';
import { getSetup, getSignIn, postSetup, postSignIn } from './handlers-public';
import { getInvoice, getInvoices, getInvoicesCsv, getOverview, getSecurity, postSecurity, postSignOut } from './handlers-signed';
import { DASHBOARD_LANGUAGES } from './strings';

/**
 * The merchant dashboard under /dashboard/ (docs/dashboard.md): server-rendered pages without any
 * script. The gateway holds no state: the session, its CSRF token, the sign-in limits and every
 * rule live in the daemon; a page reads through DashboardService and the REST API's own calls,
 * with the session token (the HttpOnly cookie) as the credential.
 */
export interface DashboardOptions {
  readonly grpcAddress: string;
  readonly credentials?: ChannelCredentials;
  readonly deadlineMs?: number;
  readonly logger: Logger;
  /** The public base URL (cookies are Secure when it is https). */
  readonly publicUrl: () => string;
  /** The browser's address (TRUSTED_PROXY-aware, gateway/client-key.ts). */
  readonly clientKey?: ClientKey;
}

export interface Dashboard {
  handle(req: IncomingMessage, res: ServerResponse, pathname: string, requestId: string): Promise<void>;
  close(): void;
}

export function isDashboardPath(pathname: string): boolean {
  return pathname === '/dashboard' || pathname.startsWith('/dashboard/');
}

const CSS = fs.readFileSync(path.join(__dirname, 'assets', 'dashboard.css'));
const CSS_TAG = createHash('sha256').update(CSS).digest('hex').slice(0, 16);
const STYLE_URL = `/dashboard/assets/dashboard.css?v=${CSS_TAG}`;
const SETUP = /^\/dashboard\/setup\/([A-Za-z0-9_-]{43})$/;
const INVOICE = /^\/dashboard\/invoices\/([0-9a-fA-F-]{36})$/;

export function createDashboard(opts: DashboardOptions): Dashboard {
  const daemon = new DashboardDaemon(opts.grpcAddress, { credentials: opts.credentials, deadlineMs: opts.deadlineMs });

  /** Errors become pages (a browser reads them): a refusal with its status, anything else 500 (logged). */
  async function handle(req: IncomingMessage, res: ServerResponse, pathname: string, requestId: string): Promise<void> {
    try {
      await route(req, res, pathname, requestId);
    } catch (err) {
      if (res.headersSent || res.destroyed) throw err;
      const url = new URL(req.url ?? '/', 'http://gateway');
      const s = stringsOf(req, url.searchParams);
      const mapped = err instanceof HttpError ? err : toHttpError(err);
      const status = mapped.status;
      // The session ended between two calls of one page: sign in again.
      if (status === 401) return sendRedirect(res, '/dashboard/sign-in?ended=1', [cookie(SESSION_COOKIE, '', isSecure(), 0)]);
      if (status >= 500) opts.logger.error({ request_id: requestId, err }, 'dashboard page failed');
      for (const [name, value] of Object.entries(mapped.headers)) res.setHeader(name, value);
      const title = status === 404 ? s.notFound : s.failed;
      sendPage(res, status, messagePage({ s, style: STYLE_URL, path: pathname }, title, title, { href: '/dashboard/', label: s.back }));
    }
  }

  async function route(req: IncomingMessage, res: ServerResponse, pathname: string, requestId: string): Promise<void> {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://gateway');
    if (pathname === '/dashboard/assets/dashboard.css') return serveCss(req, res);
    const chosen = url.searchParams.get('lang');
    const cookies = chosen && Object.hasOwn(DASHBOARD_LANGUAGES, chosen) && chosen !== readCookie(req, LANG_COOKIE) ? [cookie(LANG_COOKIE, chosen, isSecure())] : [];
    const r: Request = {
      req,
      res,
      path: pathname,
      query: url.searchParams,
      requestId,
      s: stringsOf(req, url.searchParams),
      style: STYLE_URL,
      daemon,
      secure: isSecure(),
      clientAddress: opts.clientKey ? opts.clientKey(req) : (req.socket.remoteAddress ?? 'unknown'),
      logger: opts.logger,
      cookies,
    };
    const get = method === 'GET' || method === 'HEAD';
    const allow = (ok: boolean, methods: string): void => {
      if (!ok) throw new HttpError(405, 'method_not_allowed', `method ${method} is not allowed here`, undefined, { Allow: methods });
    };
    if (pathname === '/dashboard' || pathname === '/dashboard/') {
      allow(get, 'GET');
      return sendRedirect(res, readCookie(req, SESSION_COOKIE) ? '/dashboard/overview' : '/dashboard/sign-in', cookies);
    }
    if (pathname === '/dashboard/sign-in') {
      allow(get || method === 'POST', 'GET, POST');
      return get ? getSignIn(r) : postSignIn(r);
    }
    const setup = SETUP.exec(pathname);
    if (setup) {
      allow(get || method === 'POST', 'GET, POST');
      return get ? getSetup(r, setup[1]!) : postSetup(r, setup[1]!);
    }
    if (pathname === '/dashboard/sign-out') {
      allow(method === 'POST', 'POST');
      return postSignOut(r);
    }
    if (pathname === '/dashboard/overview') {
      allow(get, 'GET');
      return getOverview(r);
    }
    if (pathname === '/dashboard/invoices') {
      allow(get, 'GET');
      return getInvoices(r);
    }
    if (pathname === '/dashboard/invoices.csv') {
      allow(get, 'GET');
      return getInvoicesCsv(r);
    }
    const invoice = INVOICE.exec(pathname);
    if (invoice) {
      allow(get, 'GET');
      return getInvoice(r, invoice[1]!.toLowerCase());
    }
    if (pathname === '/dashboard/security') {
      allow(get, 'GET');
      return getSecurity(r);
    }
    const action = /^\/dashboard\/security\/(password|time-zone|sign-out-others)$/.exec(pathname);
    if (action) {
      allow(method === 'POST', 'POST');
      return postSecurity(r, action[1] as 'password' | 'time-zone' | 'sign-out-others');
    }
    throw new HttpError(404, 'not_found', 'no such route');
  }

  function isSecure(): boolean {
    return opts.publicUrl().startsWith('https:');
  }

  function serveCss(req: IncomingMessage, res: ServerResponse): void {
    setDashboardHeaders(res);
    res.setHeader('Cache-Control', 'public, max-age=86400');
    res.setHeader('ETag', `"${CSS_TAG}"`);
    if (req.headers['if-none-match'] === `"${CSS_TAG}"`) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.setHeader('Content-Type', 'text/css; charset=utf-8');
    res.setHeader('Content-Length', CSS.length);
    res.end(CSS);
  }

  return { handle, close: () => daemon.close() };
}
