import * as grpc from '@grpc/grpc-js';
import { generateSync } from 'otplib';
import { run } from '../../src/cli/main';
import { DashboardServiceClient, DashboardUserServiceClient, type SearchInvoicesRequest, type SetupLinkResponse } from '../../src/grpc/generated/chainpay/v1/dashboard';
import { CreateInvoiceRequest } from '../../src/grpc/generated/chainpay/v1/invoices';
import type { ListAuditResponse } from '../../src/grpc/generated/chainpay/v1/operator';
import { createMerchant, rpc, signed, startStack, type MerchantCredentials, type Stack } from '../support/stack';

/**
 * Dashboard accounts against a real daemon: the CLI's setup link, setup (password + TOTP), sign-in
 * always with both, the lockout that answers the same for an unknown email, sessions (sign-out,
 * idle timeout, a disabled user), a session reads only its own merchant's invoices and never
 * writes through the REST calls, and every step in the audit log.
 */
const IDLE_MS = 2_000;
let stack: Stack;
let shop: MerchantCredentials;
let other: MerchantCredentials;
let dash: DashboardServiceClient;
let users: DashboardUserServiceClient;

beforeAll(async () => {
  stack = await startStack({ daemon: { dashboard: { timeouts: { idleMs: IDLE_MS, absoluteMs: 3_600_000 }, loginGuard: { perAccount: 3, perAddress: 50, windowMs: 60_000, lockMs: 60_000 } } } });
  [shop, other] = await Promise.all([createMerchant(stack, { name: 'Shop' }), createMerchant(stack, { name: 'Other' })]);
  dash = new DashboardServiceClient(stack.grpcAddress, grpc.credentials.createInsecure());
  users = new DashboardUserServiceClient(stack.grpcAddress, grpc.credentials.createInsecure());
}, 60_000);
afterAll(async () => {
  dash?.close();
  users?.close();
  await stack?.stop();
});

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await run(argv, {
    env: { CHAINPAY_GRPC_ADDR: stack.grpcAddress, DATA_DIR: stack.dataDir },
    stdout: { write: (s: string) => void (out += s) },
    stderr: { write: (s: string) => void (err += s) },
  });
  return { code, out, err };
}

/** The code of the time step `offset` steps from now: three distinct codes are usable within one step. */
const totp = (secret: string, offset = 0): string => generateSync({ secret, epoch: Math.floor(Date.now() / 1000) + 30 * offset });
const session = (token: string): grpc.Metadata => {
  const md = new grpc.Metadata();
  md.set('x-dashboard-session', token);
  return md;
};
const refusal = (err: unknown): { code: number; reason: string; message: string } => {
  const e = err as grpc.ServiceError;
  return { code: e.code, reason: String(e.metadata?.get('chainpay-error-code')[0] ?? ''), message: e.details };
};
async function refused(p: Promise<unknown>): Promise<{ code: number; reason: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return refusal(err);
  }
  throw new Error('expected a refusal');
}

async function enrol(link: SetupLinkResponse, password: string): Promise<string> {
  const token = link.setup_url.split('/dashboard/setup/')[1]!;
  const info = await rpc<any>((cb) => dash.getSetupInfo({ setup_token: token }, new grpc.Metadata(), cb));
  await rpc((cb) => dash.completeSetup({ setup_token: token, password, totp_code: totp(info.totp_secret, -1), time_zone: 'Europe/Madrid' }, new grpc.Metadata(), cb));
  return info.totp_secret;
}

async function freshUser(email: string, password: string): Promise<{ secret: string; userId: string }> {
  const link = await rpc<SetupLinkResponse>((cb) => users.addUser({ merchant_id: shop.merchantId, email, role: 'owner' }, stack.operator, cb));
  return { secret: await enrol(link, password), userId: link.user!.user_id };
}

const search0 = (q: Partial<SearchInvoicesRequest>): SearchInvoicesRequest => ({ status: '', network: '', from_date: '', to_date: '', query: '', limit: 0, offset: 0, ...q });

const signIn = (email: string, password: string, code: string, address = '198.51.100.1') =>
  rpc<any>((cb) => dash.signIn({ email, password, totp_code: code, client_address: address, user_agent: 'jest' }, new grpc.Metadata(), cb));

it('the CLI adds a user with a one-time 24 h setup link; setup enrols password and TOTP; the link works once', async () => {
  const added = await cli(['merchant', 'user', 'add', '--merchant', shop.merchantId, '--email', 'Owner@Shop.example', '--json']);
  if (added.code !== 0) throw new Error(added.err + added.out);
  expect(added.code).toBe(0);
  const link = JSON.parse(added.out) as SetupLinkResponse;
  expect(link.user).toMatchObject({ merchant_id: shop.merchantId, email: 'owner@shop.example', role: 'owner', state: 'setup_pending' });
  expect(link.setup_url).toMatch(/^http:\/\/[^/]+\/dashboard\/setup\/[A-Za-z0-9_-]{43}$/);
  expect(Math.abs(Date.parse(link.expires_at) - Date.now() - 24 * 3600_000)).toBeLessThan(60_000);
  // An email is one user, whatever its case; the role is owner or viewer.
  expect((await cli(['merchant', 'user', 'add', '--merchant', other.merchantId, '--email', 'OWNER@shop.example'])).err).toMatch(/email_taken/);
  expect((await cli(['merchant', 'user', 'add', '--merchant', shop.merchantId, '--email', 'x@shop.example', '--role', 'admin'])).err).toMatch(/invalid_role/);

  const token = link.setup_url.split('/dashboard/setup/')[1]!;
  const info = await rpc<any>((cb) => dash.getSetupInfo({ setup_token: token }, new grpc.Metadata(), cb));
  expect(info.otpauth_url).toBe(`otpauth://totp/chainpay:owner%40shop.example?secret=${info.totp_secret}&issuer=chainpay`);
  // The secret stays the same across views until it is used.
  expect((await rpc<any>((cb) => dash.getSetupInfo({ setup_token: token }, new grpc.Metadata(), cb))).totp_secret).toBe(info.totp_secret);
  const complete = (password: string, code: string) => rpc((cb) => dash.completeSetup({ setup_token: token, password, totp_code: code, time_zone: 'Europe/Madrid' }, new grpc.Metadata(), cb));
  expect((await refused(complete('correct horse battery', '000000'))).reason).toBe('invalid_totp_code');
  expect((await refused(complete('short', totp(info.totp_secret)))).reason).toBe('password_too_short');
  await complete('correct horse battery', totp(info.totp_secret, -1));
  expect((await refused(complete('correct horse battery', totp(info.totp_secret)))).reason).toBe('setup_link_not_found');
  expect((await refused(rpc((cb) => dash.getSetupInfo({ setup_token: token }, new grpc.Metadata(), cb)))).reason).toBe('setup_link_not_found');

  const listed = await cli(['merchant', 'user', 'list', '--merchant', shop.merchantId, '--json']);
  expect(JSON.parse(listed.out).users).toEqual([expect.objectContaining({ email: 'owner@shop.example', state: 'active', time_zone: 'Europe/Madrid' })]);
});

it('sign-in needs password and a fresh TOTP code; failures lock the account, with the same answers for an unknown email', async () => {
  const link = await rpc<SetupLinkResponse>((cb) => users.addUser({ merchant_id: shop.merchantId, email: 'lock@shop.example', role: 'viewer' }, stack.operator, cb));
  const secret = await enrol(link, 'a long enough password');
  const address = '203.0.113.7';
  // Wrong password, wrong code, unknown email: one answer.
  const wrongPassword = await refused(signIn('lock@shop.example', 'not the password!', totp(secret), address));
  const unknown = await refused(signIn('nobody@shop.example', 'not the password!', totp(secret), address));
  expect(wrongPassword).toEqual({ code: grpc.status.UNAUTHENTICATED, reason: 'invalid_credentials', message: 'the email, password or code is wrong' });
  expect(unknown).toEqual(wrongPassword);
  expect(await refused(signIn('lock@shop.example', 'a long enough password', '123456', address))).toEqual(wrongPassword);
  // Third failure of each: both are locked now, and say so the same way, even with the right credentials.
  await refused(signIn('lock@shop.example', 'a long enough password', '', address));
  await refused(signIn('nobody@shop.example', 'x', '', address));
  await refused(signIn('nobody@shop.example', 'x', '', address));
  const locked = await refused(signIn('lock@shop.example', 'a long enough password', totp(secret), '203.0.113.8'));
  const lockedUnknown = await refused(signIn('nobody@shop.example', 'a long enough password', totp(secret), '203.0.113.8'));
  expect(locked).toEqual({ code: grpc.status.RESOURCE_EXHAUSTED, reason: 'sign_in_locked', message: 'too many failed sign-ins; try again later' });
  expect(lockedUnknown).toEqual(locked);
});

it('a session reads its own merchant only, never writes through the REST calls, and ends at sign-out, when idle and when the user is disabled', async () => {
  const link = await rpc<SetupLinkResponse>((cb) => users.addUser({ merchant_id: shop.merchantId, email: 'reader@shop.example', role: 'owner' }, stack.operator, cb));
  const secret = await enrol(link, 'reader password 1');
  const first = await signIn('READER@shop.example', 'reader password 1', totp(secret, 0));
  expect(first.session.user).toMatchObject({ email: 'reader@shop.example', merchant_id: shop.merchantId });
  expect(first.session.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  // A code is used once.
  expect((await refused(signIn('reader@shop.example', 'reader password 1', totp(secret, 0)))).reason).toBe('invalid_credentials');
  const md = session(first.session_token);

  const mine = (await signed(stack, shop, 'POST', '/v1/invoices', { amount: '5', order_id: 'A-1' })).body;
  const theirs = (await signed(stack, other, 'POST', '/v1/invoices', { amount: '6', order_id: 'B-1' })).body;
  const got = await rpc<any>((cb) => stack.clients.invoices.getInvoice({ uuid: mine.uuid }, md, cb));
  expect(got.uuid).toBe(mine.uuid);
  expect((await refused(rpc((cb) => stack.clients.invoices.getInvoice({ uuid: theirs.uuid }, md, cb)))).code).toBe(grpc.status.NOT_FOUND);
  expect((await refused(rpc((cb) => dash.invoiceEvents({ uuid: theirs.uuid }, md, cb)))).code).toBe(grpc.status.NOT_FOUND);
  const search = await rpc<any>((cb) => dash.searchInvoices(search0({ query: theirs.uuid }), md, cb));
  expect(search.invoices).toEqual([]);
  expect((await rpc<any>((cb) => dash.searchInvoices(search0({ query: 'A-1' }), md, cb))).invoices.map((i: any) => i.uuid)).toEqual([mine.uuid]);
  // Writes never accept a session (no money moves without its own checks).
  expect((await refused(rpc((cb) => stack.clients.invoices.createInvoice(CreateInvoiceRequest.fromPartial({ amount: '1' }), md, cb)))).code).toBe(grpc.status.UNAUTHENTICATED);
  expect((await refused(rpc((cb) => stack.clients.invoices.cancelInvoice({ uuid: mine.uuid }, md, cb)))).code).toBe(grpc.status.UNAUTHENTICATED);

  // A second browser; sign out elsewhere ends it; signing out ends this one, and its token is dead.
  const second = await signIn('reader@shop.example', 'reader password 1', totp(secret, 1), '198.51.100.2');
  expect((await rpc<any>((cb) => dash.listSessions({}, md, cb))).sessions).toHaveLength(2);
  expect((await rpc<any>((cb) => dash.signOut({ others_only: true }, md, cb))).ended).toBe(1);
  expect((await refused(rpc((cb) => dash.getSession({}, session(second.session_token), cb)))).reason).toBe('session_ended');
  await rpc((cb) => dash.signOut({ others_only: false }, md, cb));
  expect((await refused(rpc((cb) => dash.getSession({}, md, cb)))).reason).toBe('session_ended');
  expect((await refused(rpc((cb) => stack.clients.invoices.getInvoice({ uuid: mine.uuid }, md, cb)))).code).toBe(grpc.status.UNAUTHENTICATED);

  // Idle: a session unused for IDLE_MS ends (a user of its own: each has three codes per 30 s).
  const idle = await freshUser('idle@shop.example', 'idle user password');
  const third = await signIn('idle@shop.example', 'idle user password', totp(idle.secret, 0));
  await rpc((cb) => dash.getSession({}, session(third.session_token), cb));
  await new Promise((r) => setTimeout(r, IDLE_MS + 200));
  expect((await refused(rpc((cb) => dash.getSession({}, session(third.session_token), cb)))).reason).toBe('session_ended');

  // Disabled by the operator: sessions end and sign-in answers like a wrong password.
  const fourth = await signIn('idle@shop.example', 'idle user password', totp(idle.secret, 1));
  const disabled = await cli(['merchant', 'user', 'disable', '--user', idle.userId, '--json']);
  expect(JSON.parse(disabled.out).state).toBe('disabled');
  expect((await refused(rpc((cb) => dash.getSession({}, session(fourth.session_token), cb)))).reason).toBe('session_ended');
  expect((await refused(signIn('idle@shop.example', 'idle user password', totp(idle.secret, 1)))).reason).toBe('invalid_credentials');
}, 60_000);

it('reset-totp ends sessions and issues a new setup link; every action is in the audit log', async () => {
  const link = await rpc<SetupLinkResponse>((cb) => users.addUser({ merchant_id: other.merchantId, email: 'lost@other.example', role: 'owner' }, stack.operator, cb));
  const secret = await enrol(link, 'lost phone password');
  const s = await signIn('lost@other.example', 'lost phone password', totp(secret, 0), '198.51.100.9');
  const reset = await cli(['merchant', 'user', 'reset-totp', '--user', link.user!.user_id, '--json']);
  const again = JSON.parse(reset.out) as SetupLinkResponse;
  expect(again.setup_url).not.toBe(link.setup_url);
  expect(again.user!.state).toBe('setup_pending');
  expect((await refused(rpc((cb) => dash.getSession({}, session(s.session_token), cb)))).reason).toBe('session_ended');
  expect((await refused(signIn('lost@other.example', 'lost phone password', totp(secret, 1), '198.51.100.9'))).reason).toBe('invalid_credentials');
  const newSecret = await enrol(again, 'a new password here');
  expect(newSecret).not.toBe(secret);

  const audit = await rpc<ListAuditResponse>((cb) => stack.clients.operator.listAudit({ limit: 1000 }, stack.operator, cb));
  const actions = audit.entries.filter((e) => e.target === `dashboard_user:${link.user!.user_id}`).map((e) => [e.actor.split(':')[0], e.action]);
  expect(actions.reverse()).toEqual([
    ['operator', 'dashboard.user.add'],
    ['dashboard', 'dashboard.user.setup'],
    ['dashboard', 'dashboard.sign_in'],
    ['operator', 'dashboard.user.reset_totp'],
    ['dashboard', 'dashboard.sign_in_failed'],
    ['dashboard', 'dashboard.user.setup'],
  ]);
  const signInEntry = audit.entries.find((e) => e.action === 'dashboard.sign_in' && e.target === `dashboard_user:${link.user!.user_id}`)!;
  expect(JSON.parse(signInEntry.after_json)).toMatchObject({ address: '198.51.100.9' });
});
