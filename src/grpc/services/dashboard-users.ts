import { userState, type DashboardAccounts, type SetupLink } from '../../dashboard/accounts';
import type { DashboardUser } from '../../store/entities';
import { DashboardUserServiceService, type DashboardUserServiceServer, type DashboardUser as UserMessage, type SetupLinkResponse } from '../generated/chainpay/v1/dashboard';
import { unary } from '../handler';
import type { ServiceContext } from '../context';
import { operatorIdentity } from './operator-audit';

export function toUserMessage(u: DashboardUser): UserMessage {
  return { user_id: u.id, merchant_id: u.merchantId, email: u.email, role: u.role, state: userState(u), time_zone: u.timeZone, created_at: u.createdAt.toISOString() };
}

function linkMessage(link: SetupLink): SetupLinkResponse {
  return { user: toUserMessage(link.user), setup_url: link.setupUrl, expires_at: link.expiresAt.toISOString() };
}

/** `chainpay merchant user …`: the operator token only; every change is in the audit log. */
export function dashboardUserService(ctx: ServiceContext, accounts: DashboardAccounts): { definition: typeof DashboardUserServiceService; implementation: DashboardUserServiceServer } {
  const implementation: DashboardUserServiceServer = {
    addUser: unary(ctx.logger, 'AddUser', async (call) => {
      const actor = operatorIdentity(ctx, call.metadata);
      const r = call.request;
      return linkMessage(await accounts.add({ merchantId: r.merchant_id, email: r.email, role: r.role }, actor));
    }),
    listUsers: unary(ctx.logger, 'ListUsers', async (call) => {
      ctx.auth.operator(call.metadata);
      return { users: (await accounts.list(call.request.merchant_id || null)).map(toUserMessage) };
    }),
    disableUser: unary(ctx.logger, 'DisableUser', async (call) => toUserMessage(await accounts.disable(call.request.user_id, operatorIdentity(ctx, call.metadata)))),
    resetTotp: unary(ctx.logger, 'ResetTotp', async (call) => linkMessage(await accounts.resetTotp(call.request.user_id, operatorIdentity(ctx, call.metadata)))),
  };
  return { definition: DashboardUserServiceService, implementation };
}
