import { randomUUID } from 'node:crypto';
import { BigIntType, EntitySchema } from '@mikro-orm/core';

export type DashboardRole = 'owner' | 'viewer';

/**
 * A person signing in to the merchant dashboard for one merchant (an email is one user). Secrets at
 * rest: the password as an argon2id hash, the TOTP secret sealed with the master key (SecretBox),
 * the setup link's token as its SHA-256. `totpLastStep` is the last TOTP time step accepted: a code
 * is used at most once.
 */
export class DashboardUser {
  id: string = randomUUID();
  passwordHash: string | null = null;
  totpSecretSealed: string | null = null;
  /** The secret shown on the setup page, until the user proves it with a code. */
  pendingTotpSealed: string | null = null;
  totpLastStep: number | null = null;
  setupTokenHash: string | null = null;
  setupExpiresAt: Date | null = null;
  disabledAt: Date | null = null;
  timeZone = 'UTC';
  credentialsChangedAt: Date | null = null;
  constructor(
    public merchantId: string,
    public email: string,
    public role: DashboardRole,
    public createdAt: Date,
  ) {}
}

export const DashboardUserSchema = new EntitySchema<DashboardUser>({
  class: DashboardUser,
  tableName: 'dashboard_users',
  indexes: [{ properties: ['merchantId'], name: 'dashboard_users_merchant_id_index' }],
  properties: {
    id: { type: 'uuid', primary: true },
    merchantId: { type: 'uuid' },
    email: { type: 'string', length: 254, unique: 'dashboard_users_email_unique' },
    role: { type: 'string', length: 16 },
    passwordHash: { type: 'text', nullable: true },
    totpSecretSealed: { type: 'text', nullable: true },
    pendingTotpSealed: { type: 'text', nullable: true },
    totpLastStep: { type: new BigIntType('number'), nullable: true },
    setupTokenHash: { type: 'string', length: 64, nullable: true, unique: 'dashboard_users_setup_token_hash_unique' },
    setupExpiresAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    disabledAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    timeZone: { type: 'string', length: 64, default: 'UTC' },
    credentialsChangedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
  },
});

/**
 * One signed-in browser. The cookie holds the token; only its SHA-256 is stored, so a read of the
 * database signs nobody in. Ends at `expiresAt` (absolute) or after the idle timeout since
 * `lastSeenAt`, or when `endedAt` is set (sign-out, sign out elsewhere, user disabled).
 */
export class DashboardSession {
  id: string = randomUUID();
  endedAt: Date | null = null;
  constructor(
    public tokenHash: string,
    public userId: string,
    public clientAddress: string,
    public userAgent: string,
    public createdAt: Date,
    public lastSeenAt: Date,
    public expiresAt: Date,
  ) {}
}

export const DashboardSessionSchema = new EntitySchema<DashboardSession>({
  class: DashboardSession,
  tableName: 'dashboard_sessions',
  indexes: [{ properties: ['userId'], name: 'dashboard_sessions_user_id_index' }],
  properties: {
    id: { type: 'uuid', primary: true },
    tokenHash: { type: 'string', length: 64, unique: 'dashboard_sessions_token_hash_unique' },
    userId: { type: 'uuid' },
    clientAddress: { type: 'string', length: 64 },
    userAgent: { type: 'string', length: 300 },
    createdAt: { type: 'Date', columnType: 'timestamptz(3)' },
    lastSeenAt: { type: 'Date', columnType: 'timestamptz(3)' },
    expiresAt: { type: 'Date', columnType: 'timestamptz(3)' },
    endedAt: { type: 'Date', columnType: 'timestamptz(3)', nullable: true },
  },
});
