import { MalformedRequestError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import { attributeDeposit } from '../../actors/watchers/attribute-deposit';
import type { NetworkWatcher } from '../../actors/watchers/network-watcher';
import { UnattributedDeposit } from '../../store/entities';
import { canonicalDecimal } from '../../store/repos/network-settings';
import type { UnattributedDeposit as DepositMessage } from '../generated/chainpay/v1/operator';
import { unary } from '../handler';
import type { ServiceContext } from '../context';
import type { OperatorPiece } from './operator';
import { operatorIdentity } from './operator-audit';

export function toDepositMessage(d: UnattributedDeposit): DepositMessage {
  return {
    id: d.id,
    network: d.network,
    address: d.address,
    memo: d.memo ?? undefined,
    tx_hash: d.txHash,
    event_index: d.eventIndex,
    amount: canonicalDecimal(d.amount),
    from: d.fromAddress,
    status: d.state,
    invoice_uuid: d.invoiceUuid ?? undefined,
    seen_at: d.seenAt.toISOString(),
    reason: d.reason,
    intended_invoice_uuid: d.intendedInvoiceUuid ?? undefined,
    intended_network: d.intendedNetwork ?? undefined,
  };
}

/** ListUnattributed and AttributeDeposit (`chainpay deposits unattributed|attribute`). */
export function operatorDeposits(ctx: ServiceContext, watchers: ReadonlyMap<NetworkCode, NetworkWatcher>): OperatorPiece {
  return {
    listUnattributed: unary(ctx.logger, 'ListUnattributed', async (call) => {
      ctx.auth.operator(call.metadata);
      // Default: the open ones (what needs an operator); `all` lists every state.
      const status = call.request.status?.trim() || 'open';
      const where = status === 'all' ? {} : { state: status as UnattributedDeposit['state'] };
      const rows = await ctx.orm.em.fork().find(UnattributedDeposit, where, { orderBy: { seenAt: 'desc' }, limit: 1000 });
      return { deposits: rows.map(toDepositMessage) };
    }),
    attributeDeposit: unary(ctx.logger, 'AttributeDeposit', async (call) => {
      const actor = operatorIdentity(ctx, call.metadata);
      const depositId = call.request.deposit_id?.trim();
      const invoiceUuid = call.request.invoice_uuid?.trim();
      if (!depositId) throw new MalformedRequestError('deposit_id is required', 'deposit_id', 'missing_field');
      if (!invoiceUuid) throw new MalformedRequestError('invoice_uuid is required', 'invoice_uuid', 'missing_field');
      const deposit = await attributeDeposit({ orm: ctx.orm, logger: ctx.logger, clock: ctx.clock, actors: ctx.invoiceActors, watchers }, { depositId, invoiceUuid, actor });
      return toDepositMessage(deposit);
    }),
  };
}
