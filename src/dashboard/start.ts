import type { MikroORM } from '@mikro-orm/postgresql';
import type { SecretBox } from '../security/secret-box';
import { DashboardAccounts } from './accounts';
import { DEFAULT_LOGIN_GUARD, LoginGuard, type LoginGuardOptions } from './login-guard';
import { DashboardSessions, DEFAULT_SESSION_TIMEOUTS, type SessionTimeouts } from './sessions';

export interface DashboardParts {
  readonly accounts: DashboardAccounts;
  readonly sessions: DashboardSessions;
}

/**
 * The dashboard's accounts and sessions (docs/dashboard.md). They run on wall time, whatever the
 * devnet clock says: setup links, lockouts and sessions expire in real time.
 */
export function startDashboard(deps: { orm: MikroORM; box: SecretBox; publicUrl: string; options?: { timeouts?: SessionTimeouts; loginGuard?: LoginGuardOptions } }): DashboardParts {
  const now = (): Date => new Date();
  const accounts = new DashboardAccounts({ orm: deps.orm, box: deps.box, publicUrl: deps.publicUrl, now });
  const sessions = new DashboardSessions({
    orm: deps.orm,
    box: deps.box,
    guard: new LoginGuard(deps.options?.loginGuard ?? DEFAULT_LOGIN_GUARD),
    timeouts: deps.options?.timeouts ?? DEFAULT_SESSION_TIMEOUTS,
    now,
  });
  return { accounts, sessions };
}
