import { status as GrpcStatus } from '@grpc/grpc-js';
import Decimal from 'decimal.js';
import type { SearchInvoicesRequest, SearchInvoicesResponse } from '../../src/grpc/generated/chainpay/v1/dashboard';
import type { Invoice } from '../../src/grpc/generated/chainpay/v1/invoices';
import { signedForm, signedIn, isStatus, reasonOf, type Request } from './context';
import { invoicesCsv, zonedText } from './csv';
import { dashboardMetadata } from './daemon';
import { cookie, sendPage, sendRedirect, setDashboardHeaders, SESSION_COOKIE } from './http';
import { messagePage } from './pages-public';
import { invoicePage, invoicesPage, overviewPage, PAGE_SIZE, type InvoiceFilters } from './pages-invoices';
import { securityPage } from './pages-security';
import { fill } from './strings';

const WEEK_MS = 7 * 24 * 3600_000;
const CSV_BATCH = 1000;

function forbidden(r: Request): void {
  sendPage(r.res, 403, messagePage(r, r.s.formExpired, r.s.formExpired, { href: r.path, label: r.s.back }));
}

function filtersOf(q: URLSearchParams): InvoiceFilters {
  const page = Number.parseInt(q.get('page') ?? '1', 10);
  const text = (k: string) => (q.get(k) ?? '').slice(0, 200);
  return { status: text('status'), network: text('network'), from: text('from'), to: text('to'), q: text('q').trim(), page: Number.isFinite(page) && page > 0 ? Math.min(page, 100_000) : 1 };
}

function searchRequest(f: InvoiceFilters, limit: number, offset: number): SearchInvoicesRequest {
  return { status: f.status, network: f.network, from_date: f.from, to_date: f.to, query: f.q, limit, offset };
}

export async function getOverview(r: Request): Promise<void> {
  const me = await signedIn(r);
  if (!me) return;
  const md = dashboardMetadata(r.requestId, me.token);
  const d = r.daemon;
  const since = Date.now() - WEEK_MS;
  const fromDate = zonedText(new Date(since).toISOString(), me.signed.viewer.timeZone).slice(0, 10);
  const [balance, recent, payouts] = await Promise.all([
    d.call(d.merchants, d.merchants.getBalance, { merchant_id: '' }, md),
    d.call(d.dashboard, d.dashboard.searchInvoices, searchRequest({ status: '', network: '', from: fromDate, to: '', q: '', page: 1 }, 200, 0), md),
    d.call(d.withdrawals, d.withdrawals.pageWithdrawals, { query: 'limit=100' }, md),
  ]);
  const invoices = recent.invoices.filter((i) => Date.parse(i.created_at) >= since);
  const byNetwork = new Map<string, Decimal>();
  for (const i of invoices) if (i.network && new Decimal(i.received_amount).gt(0)) byNetwork.set(i.network, (byNetwork.get(i.network) ?? new Decimal(0)).plus(i.received_amount));
  sendPage(
    r.res,
    200,
    overviewPage(me.signed, {
      available: balance.available,
      held: balance.held,
      invoices,
      payouts: payouts.withdrawals.filter((w) => Date.parse(w.created_at) >= since),
      receivedByNetwork: [...byNetwork].map(([n, sum]) => [n, sum.toFixed()] as const),
    }),
    r.cookies,
  );
}

export async function getInvoices(r: Request): Promise<void> {
  const me = await signedIn(r);
  if (!me) return;
  const f = filtersOf(r.query);
  const md = dashboardMetadata(r.requestId, me.token);
  try {
    const found = await r.daemon.call(r.daemon.dashboard, r.daemon.dashboard.searchInvoices, searchRequest(f, PAGE_SIZE, (f.page - 1) * PAGE_SIZE), md);
    sendPage(r.res, 200, invoicesPage(me.signed, f, found), r.cookies);
  } catch (err) {
    if (!isStatus(err, GrpcStatus.INVALID_ARGUMENT)) throw err;
    const empty: SearchInvoicesResponse = { invoices: [], total: 0, hidden_newer: 0, newest_hidden_uuid: '' };
    sendPage(r.res, 422, invoicesPage(me.signed, f, empty, r.s.failed), r.cookies);
  }
}

export async function getInvoicesCsv(r: Request): Promise<void> {
  const me = await signedIn(r);
  if (!me) return;
  const f = filtersOf(r.query);
  const md = dashboardMetadata(r.requestId, me.token);
  const all: Invoice[] = [];
  for (let offset = 0; ; offset += CSV_BATCH) {
    const batch = await r.daemon.call(r.daemon.dashboard, r.daemon.dashboard.searchInvoices, searchRequest(f, CSV_BATCH, offset), md);
    all.push(...batch.invoices);
    if (batch.invoices.length < CSV_BATCH || all.length >= batch.total) break;
  }
  const body = Buffer.from(invoicesCsv(all, me.signed.viewer.timeZone), 'utf8');
  setDashboardHeaders(r.res);
  r.res.statusCode = 200;
  r.res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  r.res.setHeader('Content-Disposition', 'attachment; filename="invoices.csv"');
  r.res.setHeader('Content-Length', body.length);
  r.res.end(body);
}

export async function getInvoice(r: Request, uuid: string): Promise<void> {
  const me = await signedIn(r);
  if (!me) return;
  const md = dashboardMetadata(r.requestId, me.token);
  const d = r.daemon;
  try {
    // The REST API's own GetInvoice, with the session as credential: another merchant's invoice is not found.
    const [invoice, events] = await Promise.all([d.call(d.invoices, d.invoices.getInvoice, { uuid }, md), d.call(d.dashboard, d.dashboard.invoiceEvents, { uuid }, md)]);
    sendPage(r.res, 200, invoicePage(me.signed, invoice, events.events, events.explorer_urls), r.cookies);
  } catch (err) {
    if (!isStatus(err, GrpcStatus.NOT_FOUND) && !isStatus(err, GrpcStatus.INVALID_ARGUMENT)) throw err;
    sendPage(r.res, 404, messagePage(r, r.s.notFound, r.s.notFound, { href: '/dashboard/invoices', label: r.s.invoices }), r.cookies);
  }
}

export async function getSecurity(r: Request, state: { error?: string; ok?: string } = {}, status = 200): Promise<void> {
  const me = await signedIn(r);
  if (!me) return;
  const list = await r.daemon.call(r.daemon.dashboard, r.daemon.dashboard.listSessions, {}, dashboardMetadata(r.requestId, me.token));
  const ok =
    state.ok ??
    (r.query.get('done') === 'password'
      ? r.s.passwordChanged
      : r.query.get('done') === 'zone'
        ? r.s.timeZoneSaved
        : r.query.has('ended')
          ? fill(r.s.signedOutOthers, { n: Number(r.query.get('ended')) || 0 })
          : undefined);
  sendPage(r.res, status, securityPage(me.signed, list.sessions, { ...state, ok }), r.cookies);
}

export async function postSecurity(r: Request, action: 'password' | 'time-zone' | 'sign-out-others'): Promise<void> {
  const got = await signedForm(r);
  if (got === null) return;
  if (got === 'refused') return forbidden(r);
  const md = dashboardMetadata(r.requestId, got.token);
  const d = r.daemon;
  try {
    if (action === 'password') {
      await d.call(
        d.dashboard,
        d.dashboard.changePassword,
        { current_password: got.form.get('current_password') ?? '', new_password: got.form.get('new_password') ?? '', totp_code: got.form.get('code') ?? '' },
        md,
      );
      return sendRedirect(r.res, '/dashboard/security?done=password', r.cookies);
    }
    if (action === 'time-zone') {
      await d.call(d.dashboard, d.dashboard.setTimeZone, { time_zone: got.form.get('time_zone') ?? '' }, md);
      return sendRedirect(r.res, '/dashboard/security?done=zone', r.cookies);
    }
    const out = await d.call(d.dashboard, d.dashboard.signOut, { others_only: true }, md);
    return sendRedirect(r.res, `/dashboard/security?ended=${out.ended}`, r.cookies);
  } catch (err) {
    const reason = reasonOf(err);
    const error = reason === 'invalid_credentials' ? r.s.wrongCurrent : reason.startsWith('password_too') ? r.s.passwordTooShort : reason === 'invalid_time_zone' ? r.s.badTimeZone : undefined;
    if (error === undefined) throw err;
    return getSecurity({ ...r, path: '/dashboard/security' }, { error }, 422);
  }
}

export async function postSignOut(r: Request): Promise<void> {
  const got = await signedForm(r);
  if (got === null) return;
  if (got === 'refused') return forbidden(r);
  await r.daemon.call(r.daemon.dashboard, r.daemon.dashboard.signOut, { others_only: false }, dashboardMetadata(r.requestId, got.token));
  sendRedirect(r.res, '/dashboard/sign-in', [...r.cookies, cookie(SESSION_COOKIE, '', r.secure, 0)]);
}
