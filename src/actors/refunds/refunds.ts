import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { ChainAdapter } from '../../chains/types';
import type { Clock } from '../../domain/clock';
import { formatAmount, toDecimal } from '../../domain/decimal';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors';
import type { NetworkCode, NetworkSettings } from '../../domain/networks';
import { createWithdrawalContext } from '../../domain/withdrawal-context';
import { parseMemo } from '../../domain/withdrawal-memo';
import { Withdrawal } from '../../store/entities';
import { RawSql } from '../../store/raw-sql';
import { postJournalsSql } from '../../store/repos/ledger';
import { announceOutboxEvents, insertOutboxEventsSql, refundEvents } from '../../webhooks/outbox';
import { flatUuid } from '../flat-uuid';
import { CAP_WINDOW_MS, needsReview } from '../withdrawals/caps';
import { insertWithdrawals } from '../withdrawals/creation-sql';
import { checkPayeeAccount } from '../withdrawals/payee-account';
import { AddressForms } from '../withdrawals/whitelist';
import type { WithdrawalActors } from '../withdrawals/withdrawal-actors';
import { holdLines, holdReference } from '../withdrawals/withdrawal-ledger';
import { refundAmount } from './refund-amount';
import { parseRefundBody, parseRefundReference } from './refund-request';
import { lockAndRead, markRefund } from './refund-sql';

export interface RefundsDeps {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly actors: WithdrawalActors;
  readonly adapters: ReadonlyMap<NetworkCode, ChainAdapter>;
  readonly livemode: boolean;
  readonly pollIntervalMs: number;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Refunds are withdrawals (the same row, hold, actor, payout steps and review) to the buyer's
 * address instead of a whitelisted one. What replaces the whitelist as the rail: the amount is
 * bounded by what the invoice received less its live refunds, judged under the invoice's row lock
 * (and the merchant's, which withdrawals take too, so one balance check covers both), and the
 * merchant's own refund caps send anything above them to review.
 */
export class Refunds {
  private readonly sql: RawSql;
  private readonly addresses: AddressForms;

  constructor(private readonly deps: RefundsDeps) {
    this.sql = new RawSql(deps.orm);
    this.addresses = new AddressForms(deps.adapters);
  }

  /**
   * Refused requests write nothing: every check is made before or inside the one transaction that
   * inserts the row, books its hold and writes `refund.created`. A known `reference` answers with
   * the stored refund whatever the body says (created: false).
   */
  async create(requestedMerchant: string, invoiceUuid: string, body: Record<string, unknown>, active: readonly NetworkSettings[]): Promise<{ row: Withdrawal; created: boolean }> {
    const merchantId = requestedMerchant.toLowerCase();
    if (!UUID.test(invoiceUuid)) throw new NotFoundError('invoice', invoiceUuid);
    const reference = parseRefundReference(body);
    if (reference !== null) {
      const known = await this.byReference(merchantId, reference);
      if (known) return { row: known, created: false };
    }
    const em = this.deps.orm.em.fork();
    const [invoice] = await em.execute<{ network: string | null }[]>('select network from invoices where uuid = ? and merchant_id = ?', [invoiceUuid, merchantId]);
    if (!invoice) throw new NotFoundError('invoice', invoiceUuid);
    if (invoice.network === null) throw new ConflictError('invoice_not_refundable', 'the invoice received no payment', undefined, { status: 'pending' });
    // Same network and token as the payment; a network turned off since cannot pay it back.
    const network = active.find((n) => n.code === invoice.network);
    if (!network) throw new ConflictError('network_inactive', `${invoice.network} is not active`, undefined, { network: invoice.network });
    const input = parseRefundBody(body, network.tokenDecimals);
    if (input.address.length > 128 || !this.addresses.isValid(network.code, input.address)) {
      throw new ValidationError('invalid_address', `address is not a valid ${network.code} address`, 'address');
    }
    const adapter = this.deps.adapters.get(network.code);
    const refusal = adapter?.payeeRefusal?.(input.address);
    if (refusal) throw new ValidationError(refusal.code, refusal.message, 'address');
    const memo = parseMemo(input.memo, network.code);
    await checkPayeeAccount(adapter, network.code, input.address, 'withdrawal', this.deps.logger);

    let adopted: { uuid: string; snapshot: unknown } | null = null;
    const result = await this.sql.transaction(async (q) => {
      const now = this.deps.clock.now();
      const state = await lockAndRead(q, merchantId, invoiceUuid, new Date(now.getTime() - CAP_WINDOW_MS), reference);
      if (!state?.invoice) throw new NotFoundError('invoice', invoiceUuid);
      if (state.known) return { stored: state.known } as const;
      const amount = refundAmount(state.invoice, input.amount);
      const fee = toDecimal(network.withdrawalFee);
      if (toDecimal(amount).lessThan(toDecimal(network.minWithdrawal))) {
        throw new ValidationError('amount_below_minimum', `amount is below the minimum withdrawal of ${network.minWithdrawal} on ${network.code}`, 'amount', { min_withdrawal: network.minWithdrawal });
      }
      if (input.fee === 'deducted' && toDecimal(amount).lessThanOrEqualTo(fee)) {
        throw new ValidationError('amount_not_above_fee', 'amount must be greater than the network withdrawal fee', 'amount', { withdrawal_fee: formatAmount(fee) });
      }
      const held = input.fee === 'merchant' ? formatAmount(toDecimal(amount).plus(fee)) : amount;
      const netPayout = input.fee === 'merchant' ? amount : formatAmount(toDecimal(amount).minus(fee));
      if (toDecimal(state.available).lessThan(toDecimal(held))) {
        throw new ValidationError('insufficient_balance', `the available balance (${state.available}) does not cover ${held}`, 'amount', { available: state.available });
      }
      const review = needsReview({ amount: held, perWithdrawal: state.capPerRefund, daily: state.capDailyRefund, usedLast24h: state.usedLast24h });
      const uuid = flatUuid();
      const context = createWithdrawalContext({
        uuid,
        network: network.code,
        address: input.address,
        netPayout,
        requiredConfirmations: network.requiredConfirmations,
        review,
        pollIntervalMs: this.deps.pollIntervalMs,
      });
      const snapshotJson = this.deps.actors.initialSnapshotJson(context);
      const row = new Withdrawal(uuid, merchantId, context.status, network.code, input.address, held, formatAmount(fee), netPayout, now);
      row.actorSnapshot = JSON.parse(snapshotJson) as unknown;
      row.memo = memo;
      Object.assign(row, { kind: 'refund', invoiceUuid, refundAmount: amount, refundReference: reference, refundReason: input.reason });
      await insertWithdrawals(q, [row], [snapshotJson], []);
      await markRefund(q, row, invoiceUuid);
      const events = refundEvents(row, ['refund.created'], now, this.deps);
      await insertOutboxEventsSql(q, events);
      // The check constraint (available >= 0) refuses an overdraw here too, whatever raced.
      await postJournalsSql(q, [{ reference: holdReference(uuid), kind: 'withdrawal_hold', lines: holdLines(merchantId, held) }], now);
      adopted = { uuid, snapshot: row.actorSnapshot };
      return { row, events, stored: undefined };
    });
    if (result.stored !== undefined) return { row: await this.get(result.stored, merchantId), created: false };
    const a = adopted as { uuid: string; snapshot: unknown } | null;
    if (a) this.deps.actors.adopt(a.uuid, a.snapshot);
    announceOutboxEvents(this.deps.orm, result.events);
    this.deps.logger.info({ refundUuid: result.row.uuid, invoiceUuid, merchantId, amount: result.row.refundAmount, status: result.row.status }, 'refund created');
    return { row: result.row, created: true };
  }

  private async byReference(merchantId: string, reference: string): Promise<Withdrawal | null> {
    return this.deps.orm.em.fork().findOne(Withdrawal, { merchantId, refundReference: reference, kind: 'refund' });
  }

  /** Another merchant's refund, or a withdrawal's uuid, is 404. */
  async get(uuid: string, merchantId: string | null): Promise<Withdrawal> {
    if (!UUID.test(uuid)) throw new NotFoundError('refund', uuid);
    const row = await this.deps.orm.em.fork().findOne(Withdrawal, merchantId ? { uuid, merchantId, kind: 'refund' } : { uuid, kind: 'refund' });
    if (!row) throw new NotFoundError('refund', uuid);
    return row;
  }

  /**
   * The merchant withdraws a refund before any payout: only in `review` (processing may already
   * have signed). The actor moves to `canceled` and, in the same transaction, the hold is released
   * and `refund.canceled` written; re-checked under the row lock, so an approval that won the race
   * makes this a 409 `refund_not_cancelable`.
   */
  async cancel(uuid: string, merchantId: string): Promise<Withdrawal> {
    const current = await this.get(uuid, merchantId.toLowerCase());
    const refused = (status: string) => new ConflictError('refund_not_cancelable', `the refund is ${status}: only a refund in review can be canceled`, undefined, { status });
    if (current.status !== 'review' || !this.deps.actors.has(uuid)) throw refused(current.status);
    await this.deps.actors.send(
      uuid,
      { type: 'CANCEL' },
      async (_q, row) => {
        if (row.status !== 'review') throw refused(row.status);
      },
      (ctx) => {
        if (ctx.status !== 'review') throw refused(ctx.status);
      },
    );
    this.deps.logger.info({ refundUuid: uuid, merchantId }, 'refund canceled');
    return this.get(uuid, merchantId.toLowerCase());
  }

  /** The invoice's refunds, oldest first; 404 for another merchant's invoice. */
  async listForInvoice(invoiceUuid: string, merchantId: string): Promise<Withdrawal[]> {
    if (!UUID.test(invoiceUuid)) throw new NotFoundError('invoice', invoiceUuid);
    const em = this.deps.orm.em.fork();
    const [inv] = await em.execute<{ uuid: string }[]>('select uuid from invoices where uuid = ? and merchant_id = ?', [invoiceUuid, merchantId.toLowerCase()]);
    if (!inv) throw new NotFoundError('invoice', invoiceUuid);
    return em.find(Withdrawal, { invoiceUuid, kind: 'refund' }, { orderBy: { createdAt: 'asc', uuid: 'asc' } });
  }
}
