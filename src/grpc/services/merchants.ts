import { Merchant as MerchantRow } from '../../store/entities';
import { MalformedRequestError, ValidationError } from '../../domain/errors';
import { MerchantServiceService, type Merchant as MerchantMessage, type MerchantServiceServer } from '../generated/chainpay/v1/merchants';
import { recordAudit } from '../../store/repos/audit';
import { merchantBalance } from '../../store/repos/ledger';
import { canonicalDecimal } from '../../store/repos/network-settings';
import { displayNameSetting, supportEmailSetting, supportUrlSetting } from '../../domain/merchant-checkout';
import { unary } from '../handler';
import { scopedToOwnMerchant } from '../auth';
import type { ServiceContext } from '../context';
import { operatorIdentity } from './operator-audit';
import { assertStorable } from '../../domain/text';

export function toMerchantMessage(m: MerchantRow): MerchantMessage {
  return {
    merchant_id: m.id,
    name: m.name,
    api_key: m.apiKey,
    webhook_url: m.webhookUrl ?? undefined,
    platform_fee_percent: canonicalDecimal(m.platformFeePercent),
    cap_per_withdrawal: canonicalDecimal(m.capPerWithdrawal),
    cap_daily: canonicalDecimal(m.capDaily),
    underpayment_tolerance: canonicalDecimal(m.underpaymentTolerance),
    created_at: m.createdAt.toISOString(),
    display_name: m.displayName ?? '',
    support_url: m.supportUrl ?? '',
    support_email: m.supportEmail ?? '',
    require_signed_timestamp: m.requireSignedTimestamp,
    cap_per_refund: canonicalDecimal(m.capPerRefund),
    cap_daily_refund: canonicalDecimal(m.capDailyRefund),
  };
}

const PERCENT = /^\d{1,2}(\.\d{1,4})?$|^100(\.0{1,4})?$/;
const AMOUNT = /^\d{1,20}(\.\d{1,18})?$/;

function checkWebhookUrl(url: string | undefined): string | undefined {
  if (url === undefined || url === '') return undefined;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ValidationError('invalid_webhook_url', 'webhook_url must be a valid HTTPS URL', 'webhook_url');
  }
  if (parsed.protocol !== 'https:') throw new ValidationError('invalid_webhook_url', 'webhook_url must be an HTTPS URL', 'webhook_url');
  assertStorable(url, 'webhook_url');
  return url;
}

function check(value: string | undefined, re: RegExp, code: string, field: string): string | undefined {
  if (value === undefined) return undefined;
  if (!re.test(value)) throw new ValidationError(code, `${field} is not valid`, field);
  return value;
}

export function merchantService(ctx: ServiceContext): { definition: typeof MerchantServiceService; implementation: MerchantServiceServer } {
  const implementation: MerchantServiceServer = {
    createMerchant: unary(ctx.logger, 'CreateMerchant', async (call) => {
      const actor = operatorIdentity(ctx, call.metadata);
      const name = call.request.name?.trim();
      if (!name) throw new MalformedRequestError('name is required', 'name');
      if (name.length > 200) throw new ValidationError('invalid_name', 'name is at most 200 characters', 'name');
      const webhookUrl = checkWebhookUrl(call.request.webhook_url) ?? null;
      if (webhookUrl !== null) await ctx.checkWebhookUrl(webhookUrl);
      const fee = check(call.request.platform_fee_percent, PERCENT, 'invalid_platform_fee_percent', 'platform_fee_percent') ?? ctx.defaultPlatformFeePercent;
      const em = ctx.orm.em.fork();
      const created = await em.transactional(async (tx) => {
        const c = await ctx.merchants.create(tx, { name, webhookUrl, platformFeePercent: fee }, ctx.clock.now());
        recordAudit(tx, { actor, action: 'merchant.create', target: `merchant:${c.merchant.id}`, before: null, after: { name, webhookUrl, platformFeePercent: fee }, at: ctx.clock.now() });
        return c;
      });
      ctx.logger.info({ merchantId: created.merchant.id }, 'merchant created');
      return { merchant: toMerchantMessage(created.merchant), api_secret: created.apiSecret, webhook_secret: created.webhookSecret };
    }),
    getMerchant: unary(ctx.logger, 'GetMerchant', async (call) => {
      ctx.auth.operator(call.metadata);
      return toMerchantMessage(await ctx.merchants.get(ctx.orm.em.fork(), call.request.merchant_id));
    }),
    listMerchants: unary(ctx.logger, 'ListMerchants', async (call) => {
      ctx.auth.operator(call.metadata);
      const em = ctx.orm.em.fork();
      const rows = await em.find(MerchantRow, {}, { orderBy: { createdAt: 'asc' }, limit: 1000 });
      return { merchants: rows.map(toMerchantMessage) };
    }),
    updateMerchant: unary(ctx.logger, 'UpdateMerchant', async (call) => {
      const actor = operatorIdentity(ctx, call.metadata);
      const r = call.request;
      const webhookUrl = r.webhook_url === undefined ? undefined : r.webhook_url === '' ? null : checkWebhookUrl(r.webhook_url);
      if (webhookUrl) await ctx.checkWebhookUrl(webhookUrl);
      const patch = {
        name: r.name?.trim() || undefined,
        webhookUrl,
        platformFeePercent: check(r.platform_fee_percent, PERCENT, 'invalid_platform_fee_percent', 'platform_fee_percent'),
        capPerWithdrawal: check(r.cap_per_withdrawal, AMOUNT, 'invalid_amount', 'cap_per_withdrawal'),
        capDaily: check(r.cap_daily, AMOUNT, 'invalid_amount', 'cap_daily'),
        capPerRefund: check(r.cap_per_refund, AMOUNT, 'invalid_amount', 'cap_per_refund'),
        capDailyRefund: check(r.cap_daily_refund, AMOUNT, 'invalid_amount', 'cap_daily_refund'),
        underpaymentTolerance: check(r.underpayment_tolerance, AMOUNT, 'invalid_amount', 'underpayment_tolerance'),
        displayName: displayNameSetting(r.display_name),
        supportUrl: supportUrlSetting(r.support_url),
        supportEmail: supportEmailSetting(r.support_email),
        requireSignedTimestamp: r.require_signed_timestamp,
      };
      const em = ctx.orm.em.fork();
      const updated = await em.transactional(async (tx) => {
        const m = await ctx.merchants.get(tx, r.merchant_id);
        const before = toMerchantMessage(m);
        for (const [k, v] of Object.entries(patch)) if (v !== undefined) (m as unknown as Record<string, unknown>)[k] = v;
        m.updatedAt = ctx.clock.now();
        await tx.flush();
        const after = toMerchantMessage(m);
        recordAudit(tx, { actor, action: 'merchant.update', target: `merchant:${m.id}`, before, after, at: ctx.clock.now() });
        return after;
      });
      // The signing rule is cached with the secret: this daemon applies a change at once.
      if (r.require_signed_timestamp !== undefined) ctx.onMerchantCredentialsChanged(updated.api_key);
      return updated;
    }),
    rotateSecret: unary(ctx.logger, 'RotateSecret', async (call) => {
      const actor = operatorIdentity(ctx, call.metadata);
      const em = ctx.orm.em.fork();
      const rotated = await em.transactional(async (tx) => {
        const r = await ctx.merchants.rotateSecret(tx, call.request.merchant_id, ctx.clock.now());
        recordAudit(tx, {
          actor,
          action: 'merchant.rotate_secret',
          target: `merchant:${call.request.merchant_id}`,
          before: { api_key: r.previousApiKey },
          after: { api_key: r.apiKey },
          at: ctx.clock.now(),
        });
        return r;
      });
      ctx.onMerchantCredentialsChanged(rotated.previousApiKey);
      ctx.logger.info({ merchantId: call.request.merchant_id }, 'merchant API secret rotated');
      return { api_key: rotated.apiKey, api_secret: rotated.apiSecret };
    }),
    rotateWebhookSecret: unary(ctx.logger, 'RotateWebhookSecret', async (call) => {
      const actor = operatorIdentity(ctx, call.metadata);
      const em = ctx.orm.em.fork();
      const secret = await em.transactional(async (tx) => {
        const s = await ctx.merchants.rotateWebhookSecret(tx, call.request.merchant_id, ctx.clock.now());
        recordAudit(tx, { actor, action: 'merchant.rotate_webhook_secret', target: `merchant:${call.request.merchant_id}`, before: null, after: null, at: ctx.clock.now() });
        return s;
      });
      return { webhook_secret: secret };
    }),
    getBalance: unary(ctx.logger, 'GetBalance', async (call) => {
      const caller = await ctx.auth.merchantReader(call.metadata);
      // A signed call or a dashboard session reads its own balance; the operator names the merchant.
      const merchantId = scopedToOwnMerchant(caller) ? caller.merchantId! : (caller.merchantId ?? call.request.merchant_id);
      const em = ctx.orm.em.fork();
      await ctx.merchants.get(em, merchantId);
      const b = await merchantBalance(em, merchantId);
      return { merchant_id: merchantId, available: b.available, held: b.held, currency: 'USDT' };
    }),
  };
  return { definition: MerchantServiceService, implementation };
}
