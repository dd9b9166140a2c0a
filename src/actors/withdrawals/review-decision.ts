import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import { ConflictError } from '../../domain/errors';
import type { WithdrawalMachineContext } from '../../domain/withdrawal-context';
import type { Withdrawal } from '../../store/entities';
import { recordAuditSql } from '../../store/repos/audit';
import { canonicalDecimal } from '../../store/repos/network-settings';
import { NEEDS_OPERATOR_PREFIX, type WithdrawalActors } from './withdrawal-actors';

/** An operator's review decision, as the withdrawal machine receives it. */
export type ReviewEvent = { type: 'APPROVE' } | { type: 'REJECT'; reason: string };

/**
 * Review decisions (approve, reject), audited in the transaction that commits them. REJECT also
 * resolves a processing withdrawal that waits for an operator (processing.needsOperator: its
 * payout's nonce was used and no node knows the transaction): the operator has checked the chain and
 * found no payout to the address; the hold is released. The state is checked three times (the row
 * read, the actor's context, the row under its lock), so a concurrent decision conflicts (409).
 */
export async function decideReview(
  deps: { readonly actors: WithdrawalActors; readonly clock: Clock; readonly logger: Logger },
  current: Withdrawal,
  actor: string,
  action: string,
  event: ReviewEvent,
): Promise<void> {
  const uuid = current.uuid;
  const notInReview = (status: string) => new ConflictError('withdrawal_not_in_review', `the withdrawal is ${status}, not in review`, undefined, { status });
  const awaitingOperator = (failureReason: string | null | undefined) => event.type === 'REJECT' && (failureReason ?? '').startsWith(NEEDS_OPERATOR_PREFIX);
  const decidable = (status: string, failureReason: string | null | undefined) => status === 'review' || (status === 'processing' && awaitingOperator(failureReason));
  if (!decidable(current.status, current.failureReason) || !deps.actors.has(uuid)) throw notInReview(current.status);
  const inReview = (ctx: WithdrawalMachineContext): void => {
    const waiting = ctx.attention ? `${NEEDS_OPERATOR_PREFIX}${ctx.attention}` : null;
    if (!decidable(ctx.status, ctx.failureReason ?? waiting)) throw notInReview(ctx.status);
  };
  await deps.actors.send(
    uuid,
    event,
    async (q, row) => {
      if (!decidable(row.status, row.failureReason)) throw notInReview(row.status);
      const after = event.type === 'APPROVE' ? { status: 'processing' } : { status: 'rejected', rejection_reason: event.reason };
      const before = { status: row.status, amount: canonicalDecimal(row.amount), merchant_id: row.merchantId, ...(row.failureReason ? { failure_reason: row.failureReason } : {}) };
      await recordAuditSql(q, { actor, action, target: `withdrawal:${uuid}`, before, after, at: deps.clock.now() });
    },
    inReview,
  );
  deps.logger.info({ withdrawalUuid: uuid, action, actor }, 'withdrawal review decided');
}
