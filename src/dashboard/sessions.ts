import { createHmac } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ValidationError } from '../domain/errors';
import type { SecretBox } from '../security/secret-box';
import { DashboardSession, DashboardUser, Merchant } from '../store/entities';
import { recordAudit } from '../store/repos/audit';
import { isTimeZone, normalizeEmail, userState } from './accounts';
import { acceptTotp, hashPassword, newToken, tokenHash, verifyPassword } from './credentials';
import { InvalidCredentialsError, SessionEndedError, SignInLockedError } from './errors';
import type { LoginGuard } from './login-guard';

export interface SessionTimeouts {
  /** A session unused this long ends; default 30 min. */
  readonly idleMs: number;
  /** A session ends this long after sign-in whatever happens; default 12 h. */
  readonly absoluteMs: number;
}

export const DEFAULT_SESSION_TIMEOUTS: SessionTimeouts = { idleMs: 30 * 60_000, absoluteMs: 12 * 3600_000 };
/** lastSeenAt is written at most this often (a page view is not a write each time), and well within the idle timeout. */
const TOUCH_EVERY_MS = 30_000;
const touchEvery = (t: SessionTimeouts): number => Math.min(TOUCH_EVERY_MS, Math.floor(t.idleMs / 4));

export interface SignedIn {
  readonly session: DashboardSession;
  readonly user: DashboardUser;
  readonly merchantName: string;
  /** Bound to the session token (HMAC of it): a form posts it back; stored nowhere. */
  readonly csrfToken: string;
}

export interface SessionsDeps {
  readonly orm: MikroORM;
  readonly box: SecretBox;
  readonly guard: LoginGuard;
  readonly timeouts: SessionTimeouts;
  readonly now: () => Date;
}

/** Printable text only (no control characters), at most `max` characters: what a log or a page may show. */
const clip = (text: string, max: number): string =>
  [...text]
    .filter((c) => c.charCodeAt(0) >= 0x20 && c.charCodeAt(0) !== 0x7f)
    .join('')
    .slice(0, max);

/** Sign-in (password + TOTP, always), the session behind a cookie, and what a signed-in user changes about themself. */
export class DashboardSessions {
  constructor(private readonly deps: SessionsDeps) {}

  async signIn(input: { email: string; password: string; code: string; address: string; userAgent: string }): Promise<{ token: string; signedIn: SignedIn }> {
    const address = clip(input.address, 64) || 'unknown';
    let email: string;
    try {
      email = normalizeEmail(input.email);
    } catch {
      email = clip(input.email.trim().toLowerCase(), 254);
    }
    const wait = this.deps.guard.waitMs(email, address);
    if (wait > 0) throw new SignInLockedError(Math.ceil(wait / 1000));
    const em = this.deps.orm.em.fork();
    const user = await em.findOne(DashboardUser, { email });
    // The password is checked (or a decoy hash, for an unknown email) before anything else is looked at: same cost either way.
    const passwordOk = await verifyPassword(user?.passwordHash ?? null, input.password);
    const step = passwordOk && user && userState(user) === 'active' ? acceptTotp(this.deps.box.open(user.totpSecretSealed!), input.code, user.totpLastStep, this.deps.now().getTime()) : null;
    if (!user || step === null) {
      this.deps.guard.fail(email, address);
      if (user) await this.#audit(user, 'dashboard.sign_in_failed', { address });
      throw new InvalidCredentialsError();
    }
    const token = newToken();
    const signedIn = await em.transactional(async (tx) => {
      // A code is used once: of two sign-ins racing with one code, one wins.
      const taken = await tx.nativeUpdate(DashboardUser, { id: user.id, $or: [{ totpLastStep: null }, { totpLastStep: { $lt: step } }] }, { totpLastStep: step });
      if (taken !== 1) throw new InvalidCredentialsError();
      const now = this.deps.now();
      const session = new DashboardSession(tokenHash(token), user.id, address, clip(input.userAgent, 300), now, now, new Date(now.getTime() + this.deps.timeouts.absoluteMs));
      tx.persist(session);
      recordAudit(tx, { actor: `dashboard:${user.email}`, action: 'dashboard.sign_in', target: `dashboard_user:${user.id}`, before: null, after: { address, session_id: session.id }, at: now });
      return { session, user, merchantName: await this.#merchantName(user.merchantId), csrfToken: csrfFor(token) };
    });
    this.deps.guard.succeed(email);
    return { token, signedIn };
  }

  /** The live session behind `token`, touched; SessionEndedError otherwise. */
  async resolve(token: string | undefined): Promise<SignedIn> {
    if (!token) throw new SessionEndedError();
    const em = this.deps.orm.em.fork();
    const session = await em.findOne(DashboardSession, { tokenHash: tokenHash(token) });
    const now = this.deps.now();
    if (!session || session.endedAt !== null || session.expiresAt <= now || session.lastSeenAt.getTime() + this.deps.timeouts.idleMs <= now.getTime()) throw new SessionEndedError();
    const user = await em.findOne(DashboardUser, { id: session.userId });
    if (!user || userState(user) !== 'active') throw new SessionEndedError();
    if (now.getTime() - session.lastSeenAt.getTime() >= touchEvery(this.deps.timeouts)) {
      session.lastSeenAt = now;
      await em.flush();
    }
    return { session, user, merchantName: await this.#merchantName(user.merchantId), csrfToken: csrfFor(token) };
  }

  async signOut(token: string | undefined, othersOnly: boolean): Promise<number> {
    const me = await this.resolve(token);
    const em = this.deps.orm.em.fork();
    const where = othersOnly ? { userId: me.user.id, endedAt: null, id: { $ne: me.session.id } } : { id: me.session.id, endedAt: null };
    const ended = await em.nativeUpdate(DashboardSession, where, { endedAt: this.deps.now() });
    await this.#audit(me.user, othersOnly ? 'dashboard.sign_out_elsewhere' : 'dashboard.sign_out', { address: me.session.clientAddress, ended });
    return ended;
  }

  async list(token: string | undefined): Promise<{ current: string; sessions: DashboardSession[] }> {
    const me = await this.resolve(token);
    const now = this.deps.now();
    const rows = await this.deps.orm.em
      .fork()
      .find(
        DashboardSession,
        { userId: me.user.id, endedAt: null, expiresAt: { $gt: now }, lastSeenAt: { $gt: new Date(now.getTime() - this.deps.timeouts.idleMs) } },
        { orderBy: { lastSeenAt: 'desc' } },
      );
    return { current: me.session.id, sessions: rows };
  }

  /** New password with the current one and a fresh code; every other session ends. */
  async changePassword(token: string | undefined, input: { current: string; next: string; code: string }): Promise<void> {
    const me = await this.resolve(token);
    const nextHash = await hashPassword(input.next);
    const em = this.deps.orm.em.fork();
    const user = await em.findOneOrFail(DashboardUser, { id: me.user.id });
    const ok = (await verifyPassword(user.passwordHash, input.current)) ? acceptTotp(this.deps.box.open(user.totpSecretSealed!), input.code, user.totpLastStep, this.deps.now().getTime()) : null;
    if (ok === null) throw new ValidationError('invalid_credentials', 'the current password or the code is wrong', 'current_password');
    await em.transactional(async (tx) => {
      const now = this.deps.now();
      const taken = await tx.nativeUpdate(
        DashboardUser,
        { id: user.id, $or: [{ totpLastStep: null }, { totpLastStep: { $lt: ok } }] },
        { totpLastStep: ok, passwordHash: nextHash, credentialsChangedAt: now },
      );
      if (taken !== 1) throw new ValidationError('invalid_credentials', 'the current password or the code is wrong', 'current_password');
      await tx.nativeUpdate(DashboardSession, { userId: user.id, endedAt: null, id: { $ne: me.session.id } }, { endedAt: now });
      recordAudit(tx, {
        actor: `dashboard:${user.email}`,
        action: 'dashboard.password_change',
        target: `dashboard_user:${user.id}`,
        before: null,
        after: { address: me.session.clientAddress },
        at: now,
      });
    });
  }

  async setTimeZone(token: string | undefined, zone: string): Promise<DashboardUser> {
    const me = await this.resolve(token);
    if (!isTimeZone(zone)) throw new ValidationError('invalid_time_zone', 'time_zone must be an IANA zone such as Europe/Madrid', 'time_zone');
    const em = this.deps.orm.em.fork();
    const user = await em.findOneOrFail(DashboardUser, { id: me.user.id });
    const before = user.timeZone;
    user.timeZone = zone;
    recordAudit(em, {
      actor: `dashboard:${user.email}`,
      action: 'dashboard.time_zone',
      target: `dashboard_user:${user.id}`,
      before: { time_zone: before },
      after: { time_zone: zone, address: me.session.clientAddress },
      at: this.deps.now(),
    });
    await em.flush();
    return user;
  }

  async #merchantName(merchantId: string): Promise<string> {
    const m = await this.deps.orm.em.fork().findOne(Merchant, { id: merchantId });
    return m ? (m.displayName ?? m.name) : '';
  }

  async #audit(user: DashboardUser, action: string, after: Record<string, unknown>): Promise<void> {
    await this.deps.orm.em.fork().transactional(async (em) => {
      recordAudit(em, { actor: `dashboard:${user.email}`, action, target: `dashboard_user:${user.id}`, before: null, after, at: this.deps.now() });
    });
  }
}

export function csrfFor(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('chainpay-dashboard-csrf').digest('base64url');
}
