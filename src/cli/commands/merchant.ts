import type { Merchant } from '../../grpc/generated/chainpay/v1/merchants';
import { fields, table } from '../output';
import type { CommandSpec } from '../command';
import { UsageError } from '../errors';

const MERCHANT_FIELDS = [
  'merchant_id',
  'name',
  'api_key',
  'webhook_url',
  'platform_fee_percent',
  'cap_per_withdrawal',
  'cap_daily',
  'cap_per_refund',
  'cap_daily_refund',
  'underpayment_tolerance',
  'display_name',
  'support_url',
  'support_email',
  'created_at',
] as const;

const showMerchant = (m: Merchant): string => fields(m, MERCHANT_FIELDS);

export const merchantCommands: readonly CommandSpec[] = [
  {
    name: 'merchant create',
    usage: '--name N [--webhook-url U] [--platform-fee-percent P]',
    summary: 'create a merchant; prints its API key and the secrets (shown once)',
    options: { name: { type: 'string', required: true }, 'webhook-url': { type: 'string' }, 'platform-fee-percent': { type: 'string' } },
    async run({ args, rpc, out }) {
      const c = rpc.merchants;
      const res = await rpc.call(c, c.createMerchant, {
        name: args.str('name'),
        webhook_url: args.opt('webhook-url'),
        platform_fee_percent: args.opt('platform-fee-percent'),
      });
      const doc = { ...res.merchant, api_secret: res.api_secret, webhook_secret: res.webhook_secret };
      out.result(doc, () => `${fields(doc, [...MERCHANT_FIELDS, 'api_secret', 'webhook_secret'])}\n\nThe API secret and webhook secret are shown once; store them now.`);
    },
  },
  {
    name: 'merchant show',
    usage: '--merchant ID',
    summary: 'show one merchant',
    options: { merchant: { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const c = rpc.merchants;
      const m = await rpc.call(c, c.getMerchant, { merchant_id: args.str('merchant') });
      out.result(m, () => showMerchant(m));
    },
  },
  {
    name: 'merchant list',
    usage: '',
    summary: 'list merchants',
    async run({ rpc, out }) {
      const c = rpc.merchants;
      const res = await rpc.call(c, c.listMerchants, {});
      out.result(res, () => table(res.merchants, ['merchant_id', 'name', 'platform_fee_percent', 'cap_per_withdrawal', 'cap_daily', 'webhook_url']));
    },
  },
  {
    name: 'merchant set-caps',
    usage: '--merchant ID [--per-withdrawal A] [--daily A] [--refund-per-refund A] [--refund-daily A]',
    summary: 'set the auto-payout caps (above them a withdrawal, or a refund, waits for review)',
    options: {
      merchant: { type: 'string', required: true },
      'per-withdrawal': { type: 'string' },
      daily: { type: 'string' },
      'refund-per-refund': { type: 'string' },
      'refund-daily': { type: 'string' },
    },
    async run({ args, rpc, out }) {
      args.requireAny(['per-withdrawal', 'daily', 'refund-per-refund', 'refund-daily']);
      const c = rpc.merchants;
      const m = await rpc.call(c, c.updateMerchant, {
        merchant_id: args.str('merchant'),
        cap_per_withdrawal: args.opt('per-withdrawal'),
        cap_daily: args.opt('daily'),
        cap_per_refund: args.opt('refund-per-refund'),
        cap_daily_refund: args.opt('refund-daily'),
      });
      out.result(m, () => showMerchant(m));
    },
  },
  {
    name: 'merchant set-fee',
    usage: '--merchant ID --percent P',
    summary: "set the merchant's platform fee percent",
    options: { merchant: { type: 'string', required: true }, percent: { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const c = rpc.merchants;
      const m = await rpc.call(c, c.updateMerchant, { merchant_id: args.str('merchant'), platform_fee_percent: args.str('percent') });
      out.result(m, () => showMerchant(m));
    },
  },
  {
    name: 'merchant update',
    usage: '--merchant ID [--name N] [--webhook-url U] [--underpayment-tolerance A] [--require-timestamp on|off]',
    summary: "change a merchant's name, webhook URL, underpayment tolerance or whether signed calls need X-Service-Timestamp",
    options: {
      merchant: { type: 'string', required: true },
      name: { type: 'string' },
      'webhook-url': { type: 'string' },
      'underpayment-tolerance': { type: 'string' },
      'require-timestamp': { type: 'string' },
    },
    async run({ args, rpc, out }) {
      args.requireAny(['name', 'webhook-url', 'underpayment-tolerance', 'require-timestamp']);
      const requireTimestamp = args.opt('require-timestamp');
      if (requireTimestamp !== undefined && requireTimestamp !== 'on' && requireTimestamp !== 'off') throw new UsageError('--require-timestamp is on or off', args.command);
      const c = rpc.merchants;
      const m = await rpc.call(c, c.updateMerchant, {
        merchant_id: args.str('merchant'),
        name: args.opt('name'),
        webhook_url: args.opt('webhook-url'),
        underpayment_tolerance: args.opt('underpayment-tolerance'),
        require_signed_timestamp: requireTimestamp === undefined ? undefined : requireTimestamp === 'on',
      });
      out.result(m, () => showMerchant(m));
    },
  },
  {
    name: 'merchant set-checkout',
    usage: '--merchant ID [--display-name N] [--support-url U] [--support-email E]',
    summary: "what the checkout page shows: the merchant's display name and support contact ('' clears one)",
    options: {
      merchant: { type: 'string', required: true },
      'display-name': { type: 'string' },
      'support-url': { type: 'string' },
      'support-email': { type: 'string' },
    },
    async run({ args, rpc, out }) {
      args.requireAny(['display-name', 'support-url', 'support-email']);
      const c = rpc.merchants;
      const m = await rpc.call(c, c.updateMerchant, {
        merchant_id: args.str('merchant'),
        display_name: args.opt('display-name'),
        support_url: args.opt('support-url'),
        support_email: args.opt('support-email'),
      });
      out.result(m, () => showMerchant(m));
    },
  },
  {
    name: 'merchant rotate-secret',
    usage: '--merchant ID',
    summary: 'issue a new API key and secret (the old ones stop working)',
    options: { merchant: { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const c = rpc.merchants;
      const res = await rpc.call(c, c.rotateSecret, { merchant_id: args.str('merchant') });
      out.result(res, () => `${fields(res, ['api_key', 'api_secret'])}\n\nThe API secret is shown once; store it now.`);
    },
  },
  {
    name: 'merchant rotate-webhook-secret',
    usage: '--merchant ID',
    summary: 'issue a new Standard Webhooks secret',
    options: { merchant: { type: 'string', required: true } },
    async run({ args, rpc, out }) {
      const c = rpc.merchants;
      const res = await rpc.call(c, c.rotateWebhookSecret, { merchant_id: args.str('merchant') });
      out.result(res, () => `${fields(res, ['webhook_secret'])}\n\nThe webhook secret is shown once; store it now.`);
    },
  },
];
