import { ForbiddenError, MalformedRequestError } from '../../domain/errors';
import { parseNetwork } from '../../domain/invoice-request';
import type { Metadata } from '@grpc/grpc-js';
import { WithdrawalServiceService, type WithdrawalServiceServer, type WhitelistRequest } from '../generated/chainpay/v1/withdrawals';
import { toWhitelistMessage, toWithdrawalMessage } from '../views/withdrawal-message';
import { defined, requestBody } from '../request-body';
import { unary } from '../handler';
import type { ServiceContext } from '../context';
import { operatorIdentity } from './operator-audit';
import { stopIfCancelled } from '../call-cancelled';
import { WITHDRAWAL_STATUSES } from '../../domain/withdrawal-context';
import { parseListQuery } from '../../domain/list-query';
import { keysetPage } from '../../store/repos/keyset-page';
import { Withdrawal } from '../../store/entities';

/**
 * Merchant-facing payouts (signed REST through the gateway, or a service token) and the whitelist
 * (operator or service token only: a leaked API key must not be able to add a payout address).
 */
export function withdrawalService(ctx: ServiceContext): { definition: typeof WithdrawalServiceService; implementation: WithdrawalServiceServer } {
  const activeNetworks = () => ctx.networks.list(() => ctx.orm.em.fork());

  /** The merchant a whitelist call is about: the token's x-merchant-id or the message's merchant_id. */
  const whitelistTarget = async (md: Metadata, requested: string, change: boolean): Promise<{ merchantId: string; actor: string }> => {
    const caller = await ctx.auth.merchant(md);
    if (caller.via === 'signature') {
      if (change) throw new ForbiddenError('whitelist_requires_operator', 'the whitelist is changed with the operator or service token');
      return { merchantId: caller.merchantId!, actor: 'merchant' };
    }
    if (requested && caller.merchantId && requested !== caller.merchantId) {
      throw new MalformedRequestError('merchant_id and x-merchant-id name different merchants', 'merchant_id');
    }
    const merchantId = requested || caller.merchantId;
    if (!merchantId) throw new MalformedRequestError('merchant_id is required', 'merchant_id', 'missing_field');
    return { merchantId, actor: caller.via === 'operator' ? operatorIdentity(ctx, md) : 'service' };
  };

  const entryArgs = async (r: WhitelistRequest) => {
    if (!r.network) throw new MalformedRequestError('network is required', 'network', 'missing_field');
    if (!r.address) throw new MalformedRequestError('address is required', 'address', 'missing_field');
    return { network: parseNetwork(r.network, await activeNetworks()), address: r.address };
  };

  const implementation: WithdrawalServiceServer = {
    createWithdrawal: unary(ctx.logger, 'CreateWithdrawal', async (call, log) => {
      const caller = await ctx.auth.merchantRequired(call.metadata);
      const r = call.request;
      const body = requestBody(caller, () => defined({ network: r.network || undefined, address: r.address || undefined, amount: r.amount || undefined, reference: r.reference }));
      const networks = await activeNetworks();
      // The last point where nothing is written yet: a client gone by now requests no payout.
      stopIfCancelled(call, 'CreateWithdrawal');
      const { row, created } = await ctx.withdrawals.create(caller.merchantId, body, networks, log.requestId);
      return { withdrawal: toWithdrawalMessage(row, ctx), created };
    }),
    getWithdrawal: unary(ctx.logger, 'GetWithdrawal', async (call) => {
      const caller = await ctx.auth.merchant(call.metadata);
      return toWithdrawalMessage(await ctx.withdrawals.get(call.request.uuid, caller.merchantId), ctx);
    }),
    listWithdrawals: unary(ctx.logger, 'ListWithdrawals', async (call) => {
      const caller = await ctx.auth.merchant(call.metadata);
      const merchantId = caller.via === 'signature' ? caller.merchantId : (caller.merchantId ?? (call.request.merchant_id || null));
      const rows = await ctx.withdrawals.list({ merchantId, status: call.request.status || null, limit: call.request.limit });
      return { withdrawals: rows.map((row) => toWithdrawalMessage(row, ctx)) };
    }),
    pageWithdrawals: unary(ctx.logger, 'PageWithdrawals', async (call) => {
      const caller = await ctx.auth.merchantReaderRequired(call.metadata);
      const query = parseListQuery(call.request.query, { statuses: WITHDRAWAL_STATUSES, keyParam: 'reference' });
      // Refunds are withdrawal rows too, listed per invoice (GET /v1/invoices/{uuid}/refunds), not here.
      const page = await keysetPage(ctx.orm.em.fork(), Withdrawal, caller.merchantId, query, 'reference', { kind: 'withdrawal' });
      return { withdrawals: page.rows.map((row) => toWithdrawalMessage(row, ctx)), next_cursor: page.nextCursor ?? undefined };
    }),
    addWhitelist: unary(ctx.logger, 'AddWhitelist', async (call) => {
      const target = await whitelistTarget(call.metadata, call.request.merchant_id, true);
      const { network, address } = await entryArgs(call.request);
      return toWhitelistMessage(await ctx.whitelist.add(target.merchantId, network, address, target.actor, call.request.memo ?? null));
    }),
    removeWhitelist: unary(ctx.logger, 'RemoveWhitelist', async (call) => {
      const target = await whitelistTarget(call.metadata, call.request.merchant_id, true);
      const { network, address } = await entryArgs(call.request);
      return toWhitelistMessage(await ctx.whitelist.remove(target.merchantId, network, address, target.actor));
    }),
    listWhitelist: unary(ctx.logger, 'ListWhitelist', async (call) => {
      const target = await whitelistTarget(call.metadata, call.request.merchant_id, false);
      const network = call.request.network ? parseNetwork(call.request.network, await activeNetworks()).code : null;
      return { entries: (await ctx.whitelist.list(target.merchantId, network)).map(toWhitelistMessage) };
    }),
  };
  return { definition: WithdrawalServiceService, implementation };
}
