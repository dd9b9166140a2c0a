import { MalformedRequestError } from '../../domain/errors';
import { toWithdrawalMessage } from '../views/withdrawal-message';
import { unary } from '../handler';
import type { ServiceContext } from '../context';
import type { OperatorPiece } from './operator';
import { operatorIdentity } from './operator-audit';

/** The review decisions of the operator plane (chainpay withdrawals approve|reject); audited. */
export function operatorWithdrawals(ctx: ServiceContext): OperatorPiece {
  return {
    approveWithdrawal: unary(ctx.logger, 'ApproveWithdrawal', async (call) => {
      const actor = operatorIdentity(ctx, call.metadata);
      if (!call.request.uuid) throw new MalformedRequestError('uuid is required', 'uuid', 'missing_field');
      return toWithdrawalMessage(await ctx.withdrawals.approve(call.request.uuid, actor), ctx);
    }),
    rejectWithdrawal: unary(ctx.logger, 'RejectWithdrawal', async (call) => {
      const actor = operatorIdentity(ctx, call.metadata);
      if (!call.request.uuid) throw new MalformedRequestError('uuid is required', 'uuid', 'missing_field');
      return toWithdrawalMessage(await ctx.withdrawals.reject(call.request.uuid, call.request.reason ?? '', actor), ctx);
    }),
  };
}
