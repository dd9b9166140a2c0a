import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ConflictError, MalformedRequestError, NotFoundError, ValidationError } from '../domain/errors';
import type { SecretBox } from '../security/secret-box';
import { DashboardSession, DashboardUser, Merchant, type DashboardRole } from '../store/entities';
import { recordAudit } from '../store/repos/audit';
import { acceptTotp, hashPassword, newToken, newTotpSecret, otpauthUrl, tokenHash } from './credentials';

export const SETUP_LINK_TTL_MS = 24 * 3600_000;
const EMAIL = /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;
const ISSUER = 'chainpay';

export interface AccountsDeps {
  readonly orm: MikroORM;
  readonly box: SecretBox;
  /** The gateway's public base URL: setup links point at `/dashboard/setup/<token>` there. */
  readonly publicUrl: string;
  /** Wall time: links and sessions expire in real time, whatever a devnet clock says. */
  readonly now: () => Date;
}

export interface SetupLink {
  readonly user: DashboardUser;
  readonly setupUrl: string;
  readonly expiresAt: Date;
}

export type UserState = 'active' | 'setup_pending' | 'disabled';

export function userState(u: DashboardUser): UserState {
  if (u.disabledAt !== null) return 'disabled';
  return u.passwordHash === null || u.totpSecretSealed === null ? 'setup_pending' : 'active';
}

export function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) throw new ValidationError('invalid_email', 'email is not a valid address', 'email');
  return email;
}

export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return zone.length <= 64;
  } catch {
    return false;
  }
}

/** Dashboard users: what the operator does (`chainpay merchant user …`) and the setup link. */
export class DashboardAccounts {
  constructor(private readonly deps: AccountsDeps) {}

  async add(input: { merchantId: string; email: string; role: string }, actor: string): Promise<SetupLink> {
    const role = parseRole(input.role);
    const email = normalizeEmail(input.email);
    return this.deps.orm.em.fork().transactional(async (em) => {
      const merchantId = input.merchantId.toLowerCase();
      if (!/^[0-9a-f-]{36}$/.test(merchantId) || !(await em.findOne(Merchant, { id: merchantId }))) throw new NotFoundError('merchant', input.merchantId);
      if (await em.findOne(DashboardUser, { email })) throw new ConflictError('email_taken', 'a dashboard user with this email exists', 'email');
      const user = new DashboardUser(merchantId, email, role, this.deps.now());
      const link = this.#newLink(user);
      em.persist(user);
      recordAudit(em, { actor, action: 'dashboard.user.add', target: `dashboard_user:${user.id}`, before: null, after: { merchant_id: merchantId, email, role }, at: this.deps.now() });
      return link;
    });
  }

  async list(merchantId: string | null): Promise<DashboardUser[]> {
    return this.deps.orm.em.fork().find(DashboardUser, merchantId ? { merchantId: merchantId.toLowerCase() } : {}, { orderBy: { createdAt: 'asc', id: 'asc' } });
  }

  async disable(userId: string, actor: string): Promise<DashboardUser> {
    return this.#change(userId, actor, 'dashboard.user.disable', (user) => {
      user.disabledAt ??= this.deps.now();
      user.setupTokenHash = null;
      user.setupExpiresAt = null;
    });
  }

  /** A lost authenticator: the old secret and password stop working; a new setup link sets both again. */
  async resetTotp(userId: string, actor: string): Promise<SetupLink> {
    let link: SetupLink | undefined;
    const user = await this.#change(userId, actor, 'dashboard.user.reset_totp', (u) => {
      if (u.disabledAt !== null) throw new ConflictError('user_disabled', 'the user is disabled');
      u.totpSecretSealed = null;
      u.totpLastStep = null;
      u.passwordHash = null;
      u.credentialsChangedAt = this.deps.now();
      link = this.#newLink(u);
    });
    return { ...link!, user };
  }

  /** The setup page: the link's user and a TOTP secret, made on the first view and kept until used. */
  async setupInfo(token: string): Promise<{ user: DashboardUser; merchantName: string; secret: string; otpauthUrl: string }> {
    return this.deps.orm.em.fork().transactional(async (em) => {
      const user = await this.#byLink(em, token);
      if (user.pendingTotpSealed === null) user.pendingTotpSealed = this.deps.box.seal(newTotpSecret());
      const secret = this.deps.box.open(user.pendingTotpSealed);
      const merchant = await em.findOneOrFail(Merchant, { id: user.merchantId });
      return { user, merchantName: merchant.displayName ?? merchant.name, secret, otpauthUrl: otpauthUrl(secret, user.email, ISSUER) };
    });
  }

  async completeSetup(input: { token: string; password: string; code: string; timeZone: string }, address: string): Promise<DashboardUser> {
    const passwordHash = await hashPassword(input.password);
    return this.deps.orm.em.fork().transactional(async (em) => {
      const user = await this.#byLink(em, input.token);
      if (user.pendingTotpSealed === null) throw new ConflictError('setup_not_started', 'open the setup link first');
      const secret = this.deps.box.open(user.pendingTotpSealed);
      const step = acceptTotp(secret, input.code, null, this.deps.now().getTime());
      if (step === null) throw new ValidationError('invalid_totp_code', 'the code does not match the secret; check the device clock', 'totp_code');
      const now = this.deps.now();
      user.passwordHash = passwordHash;
      user.totpSecretSealed = user.pendingTotpSealed;
      user.pendingTotpSealed = null;
      user.totpLastStep = step;
      user.setupTokenHash = null;
      user.setupExpiresAt = null;
      user.credentialsChangedAt = now;
      if (input.timeZone && isTimeZone(input.timeZone)) user.timeZone = input.timeZone;
      recordAudit(em, { actor: `dashboard:${user.email}`, action: 'dashboard.user.setup', target: `dashboard_user:${user.id}`, before: null, after: { address }, at: now });
      return user;
    });
  }

  async #byLink(em: EntityManager, token: string): Promise<DashboardUser> {
    const user = token ? await em.findOne(DashboardUser, { setupTokenHash: tokenHash(token) }) : null;
    // One answer for an unknown, used or expired link: it reveals nothing about any account.
    if (!user || user.disabledAt !== null || user.setupExpiresAt === null || user.setupExpiresAt <= this.deps.now()) throw new NotFoundError('setup_link');
    return user;
  }

  #newLink(user: DashboardUser): SetupLink {
    const token = newToken();
    const expiresAt = new Date(this.deps.now().getTime() + SETUP_LINK_TTL_MS);
    user.setupTokenHash = tokenHash(token);
    user.setupExpiresAt = expiresAt;
    user.pendingTotpSealed = null;
    return { user, setupUrl: `${this.deps.publicUrl.replace(/\/+$/, '')}/dashboard/setup/${token}`, expiresAt };
  }

  async #change(userId: string, actor: string, action: string, apply: (u: DashboardUser) => void): Promise<DashboardUser> {
    if (!/^[0-9a-fA-F-]{36}$/.test(userId)) throw new MalformedRequestError('user_id must be a uuid', 'user_id');
    return this.deps.orm.em.fork().transactional(async (em) => {
      const user = await em.findOne(DashboardUser, { id: userId.toLowerCase() });
      if (!user) throw new NotFoundError('dashboard_user', userId);
      const before = userState(user);
      apply(user);
      // Whatever changed, every session of the user ends: they sign in again with what is current.
      await em.nativeUpdate(DashboardSession, { userId: user.id, endedAt: null }, { endedAt: this.deps.now() });
      recordAudit(em, { actor, action, target: `dashboard_user:${user.id}`, before: { state: before }, after: { state: userState(user) }, at: this.deps.now() });
      return user;
    });
  }
}

function parseRole(raw: string): DashboardRole {
  const role = raw === '' ? 'owner' : raw;
  if (role !== 'owner' && role !== 'viewer') throw new ValidationError('invalid_role', 'role must be owner or viewer', 'role');
  return role;
}
