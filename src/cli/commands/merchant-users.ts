import type { DashboardUser, SetupLinkResponse } from '../../grpc/generated/chainpay/v1/dashboard';
import { fields, table } from '../output';
import type { CommandSpec } from '../command';

const USER_FIELDS = ['user_id', 'merchant_id', 'email', 'role', 'state', 'time_zone', 'created_at'] as const;

const showLink = (res: SetupLinkResponse): string =>
  `${fields(res.user as DashboardUser, USER_FIELDS)}\nsetup_url    ${res.setup_url}\nexpires_at   ${res.expires_at}\n\nSend the setup link to the user only (it is shown once): whoever opens it sets the password and the authenticator.`;

/** `chainpay merchant user …`: the merchant dashboard's accounts (docs/dashboard.md). */
export const merchantUserCommands: readonly CommandSpec[] = [
  {
    name: 'merchant user add',
    usage: '--merchant ID --email E [--role owner|viewer]',
    summary: 'add a dashboard user; prints a one-time setup link (24 h) for the password and the authenticator',
    options: { merchant: { type: 'string', required: true }, email: { type: 'string', required: true }, role: { type: 'string' } },
    async run({ args, rpc, out }) {
      const c = rpc.dashboardUsers;
      const res = await rpc.call(c, c.addUser, { merchant_id: args.str('merchant'), email: args.str('email'), role: args.opt('role') ?? 'owner' });
      out.result(res, () => showLink(res));
    },
  },
  {
    name: 'merchant user list',
    usage: '[--merchant ID]',
    summary: "list dashboard users (one merchant's, or all)",
    options: { merchant: { type: 'string' } },
    async run({ args, rpc, out }) {
      const c = rpc.dashboardUsers;
      const res = await rpc.call(c, c.listUsers, { merchant_id: args.opt('merchant') ?? '' });
      out.result(res, () => table(res.users, ['user_id', 'merchant_id', 'email', 'role', 'state', 'created_at']));
    },
  },
  {
    name: 'merchant user disable',
    usage: '--user ID',
    summary: 'disable a dashboard user: every session ends, sign-in is refused',
    options: { user: { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const c = rpc.dashboardUsers;
      const res = await rpc.call(c, c.disableUser, { user_id: args.str('user') });
      out.result(res, () => fields(res, USER_FIELDS));
    },
  },
  {
    name: 'merchant user reset-totp',
    usage: '--user ID',
    summary: 'a lost authenticator: the password and TOTP stop working; prints a new setup link',
    options: { user: { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const c = rpc.dashboardUsers;
      const res = await rpc.call(c, c.resetTotp, { user_id: args.str('user') });
      out.result(res, () => showLink(res));
    },
  },
];
