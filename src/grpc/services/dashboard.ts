import type { Metadata } from '@grpc/grpc-js';
import type { DashboardAccounts } from '../../dashboard/accounts';
import { searchInvoices } from '../../dashboard/invoice-search';
import type { DashboardSessions, SignedIn } from '../../dashboard/sessions';
import { MalformedRequestError, NotFoundError } from '../../domain/errors';
import { explorerTemplate, explorerTxUrl } from '../../domain/explorers';
import { Invoice, InvoicePayment, OutboxEvent } from '../../store/entities';
import { DashboardServiceService, type DashboardServiceServer, type DashboardSession as SessionMessage } from '../generated/chainpay/v1/dashboard';
import { unary } from '../handler';
import type { ServiceContext } from '../context';
import { toInvoiceMessage } from '../views/invoice-message';
import { toUserMessage } from './dashboard-users';

export interface DashboardDeps {
  readonly accounts: DashboardAccounts;
  readonly sessions: DashboardSessions;
}

/** The session token the gateway read from the browser's cookie. */
export function dashboardToken(md: Metadata): string | undefined {
  const v = md.get('x-dashboard-session')[0];
  const token = typeof v === 'string' ? v : v?.toString('utf8');
  return token || undefined;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function sessionMessage(s: SignedIn): SessionMessage {
  return { user: toUserMessage(s.user), merchant_name: s.merchantName, csrf_token: s.csrfToken, expires_at: s.session.expiresAt.toISOString() };
}

/**
 * What the dashboard pages ask the daemon (proto/chainpay/v1/dashboard.proto): setup, sign-in,
 * the session and reads scoped to the signed-in user's merchant. Everything else a page does is the
 * REST API's own call with the session as credential (Authenticator.merchantReader).
 */
export function dashboardService(ctx: ServiceContext, deps: DashboardDeps): { definition: typeof DashboardServiceService; implementation: DashboardServiceServer } {
  const me = (md: Metadata): Promise<SignedIn> => deps.sessions.resolve(dashboardToken(md));
  const implementation: DashboardServiceServer = {
    getSetupInfo: unary(ctx.logger, 'GetSetupInfo', async (call) => {
      const info = await deps.accounts.setupInfo(call.request.setup_token);
      return { email: info.user.email, merchant_name: info.merchantName, totp_secret: info.secret, otpauth_url: info.otpauthUrl, expires_at: info.user.setupExpiresAt!.toISOString() };
    }),
    completeSetup: unary(ctx.logger, 'CompleteSetup', async (call) => {
      const r = call.request;
      const user = await deps.accounts.completeSetup({ token: r.setup_token, password: r.password, code: r.totp_code, timeZone: r.time_zone }, 'gateway');
      return toUserMessage(user);
    }),
    signIn: unary(ctx.logger, 'SignIn', async (call, log) => {
      const r = call.request;
      const { token, signedIn } = await deps.sessions.signIn({ email: r.email, password: r.password, code: r.totp_code, address: r.client_address, userAgent: r.user_agent });
      log.logger.info({ userId: signedIn.user.id, merchantId: signedIn.user.merchantId, sessionId: signedIn.session.id }, 'dashboard sign-in');
      return { session_token: token, session: sessionMessage(signedIn) };
    }),
    getSession: unary(ctx.logger, 'GetSession', async (call) => sessionMessage(await me(call.metadata))),
    signOut: unary(ctx.logger, 'SignOut', async (call) => ({ ended: await deps.sessions.signOut(dashboardToken(call.metadata), call.request.others_only) })),
    listSessions: unary(ctx.logger, 'ListSessions', async (call) => {
      const { current, sessions } = await deps.sessions.list(dashboardToken(call.metadata));
      return {
        sessions: sessions.map((s) => ({
          session_id: s.id,
          client_address: s.clientAddress,
          user_agent: s.userAgent,
          created_at: s.createdAt.toISOString(),
          last_seen_at: s.lastSeenAt.toISOString(),
          current: s.id === current,
        })),
      };
    }),
    changePassword: unary(ctx.logger, 'ChangePassword', async (call) => {
      const r = call.request;
      await deps.sessions.changePassword(dashboardToken(call.metadata), { current: r.current_password, next: r.new_password, code: r.totp_code });
      return {};
    }),
    setTimeZone: unary(ctx.logger, 'SetTimeZone', async (call) => toUserMessage(await deps.sessions.setTimeZone(dashboardToken(call.metadata), call.request.time_zone))),
    searchInvoices: unary(ctx.logger, 'SearchInvoices', async (call) => {
      const s = await me(call.metadata);
      const r = call.request;
      const em = ctx.orm.em.fork();
      const found = await searchInvoices(em, s.user.merchantId, s.user.timeZone, {
        status: r.status,
        network: r.network,
        fromDate: r.from_date,
        toDate: r.to_date,
        query: r.query,
        limit: r.limit,
        offset: r.offset,
      });
      const payments = found.rows.length ? await em.find(InvoicePayment, { invoiceUuid: { $in: found.rows.map((i) => i.uuid) } }) : [];
      const invoices = await Promise.all(
        found.rows.map((row) =>
          toInvoiceMessage(
            row,
            payments.filter((p) => p.invoiceUuid === row.uuid),
            ctx,
            { drawQr: false },
          ),
        ),
      );
      return { invoices, total: found.total, hidden_newer: found.hiddenNewer, newest_hidden_uuid: found.newestHidden ?? '' };
    }),
    invoiceEvents: unary(ctx.logger, 'InvoiceEvents', async (call) => {
      const s = await me(call.metadata);
      const uuid = call.request.uuid;
      if (!UUID.test(uuid)) throw new MalformedRequestError('uuid must be a uuid', 'uuid');
      const em = ctx.orm.em.fork();
      // Another merchant's invoice is not found, exactly like an unknown one.
      const row = await em.findOne(Invoice, { uuid: uuid.toLowerCase(), merchantId: s.user.merchantId }, { fields: ['uuid', 'network'] });
      if (!row) throw new NotFoundError('invoice', uuid);
      const events = await em.find(OutboxEvent, { aggregateType: 'invoice', aggregateId: row.uuid, merchantId: s.user.merchantId }, { orderBy: { seq: 'asc' } });
      const payments = await em.find(InvoicePayment, { invoiceUuid: row.uuid }, { fields: ['txHash'] });
      const network = row.network ? (await ctx.networks.list(() => ctx.orm.em.fork(), { includeInactive: true })).find((n) => n.code === row.network) : undefined;
      const template = network ? explorerTemplate(network.code, network.explorerTxUrl, ctx.livemode) : null;
      return {
        explorer_urls: Object.fromEntries(payments.map((p) => [p.txHash, explorerTxUrl(template, p.txHash)]).filter(([, url]) => url !== '')),
        events: events.map((e) => ({ id: e.id, type: e.type, status: e.status, attempts: e.attempts, created_at: e.createdAt.toISOString(), delivered_at: e.deliveredAt?.toISOString() ?? '' })),
      };
    }),
  };
  return { definition: DashboardServiceService, implementation };
}
