import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { InvoiceMachineContext } from '../../domain/invoice-context';
import { confirmedTotal } from '../../domain/invoice-status';
import { invoiceWebhookEvents } from '../../domain/invoice-webhooks';
import { formatAmount } from '../../domain/decimal';
import { Invoice, InvoicePayment } from '../../store/entities';
import { postJournal } from '../../store/repos/ledger';
import { releaseAddress } from '../../store/repos/address-pool';
import { canonicalDecimal } from '../../store/repos/network-settings';
import { settlementLines } from './settlement';
import type { TransferDetails, UnitOfWork } from './invoice-entry';

/** Writes the invoice's webhook events (in order) to the outbox, inside the commit's transaction. */
export type OutboxWriter = (em: EntityManager, row: Invoice, types: readonly string[]) => Promise<void>;

const BOOKED_STATUSES = new Set(['paid', 'overpaid', 'underpaid']);

/** The actor's state to commit; `read` is called again after `prepare` ran (the event it built was delivered). */
export interface CommitInput {
  readonly uuid: string;
  readonly before: InvoiceMachineContext;
  readonly read: () => { ctx: InvoiceMachineContext; done: boolean; persistedSnapshot: unknown };
  readonly details: ReadonlyMap<string, TransferDetails> | null;
  readonly work?: UnitOfWork;
  readonly prepare?: (em: EntityManager) => Promise<void>;
  readonly now: Date;
}

export interface Committed {
  readonly ctx: InvoiceMachineContext;
  readonly done: boolean;
  readonly persistedSnapshot: unknown;
  readonly merchantId: string;
  readonly network: string | null;
  /** The confirmed total booked to the merchant in this transaction, null when nothing was posted. */
  readonly credited: string | null;
}

/**
 * One change of an invoice's actor in ONE transaction: the row's fields from the context, its
 * payments, the ledger (only the difference to what is booked), `work`, closing (the address goes
 * back to the pool), the snapshot and the outbox events the change calls for. Throws when the
 * transaction failed; the caller then rebuilds the actor from the last committed snapshot.
 */
export async function commitInvoice(orm: MikroORM, writeOutbox: OutboxWriter, input: CommitInput): Promise<Committed> {
  let state = input.read();
  let merchantId = '';
  let network: string | null = null;
  let credited: string | null = null;
  await orm.em.fork().transactional(async (em) => {
    if (input.prepare) {
      await input.prepare(em);
      state = input.read();
    }
    const { ctx, done } = state;
    const row = await em.findOneOrFail(Invoice, { uuid: input.uuid });
    merchantId = row.merchantId;
    network = row.network;
    applyContext(row, ctx);
    await writePayments(em, row, input.before, ctx, input.details);
    credited = await book(em, row, ctx, input.now);
    if (input.work) await input.work(em, row);
    if (done) {
      row.open = false;
      row.closedAt = input.now;
      if (row.network && row.address && !row.memo) await releaseAddress(em, row.network, input.uuid);
    }
    row.actorSnapshot = state.persistedSnapshot;
    row.updatedAt = input.now;
    await em.flush();
    const types = invoiceWebhookEvents(input.before, ctx);
    if (types.length > 0) await writeOutbox(em, row, types);
  });
  return { ...state, merchantId, network, credited };
}

function applyContext(row: Invoice, ctx: InvoiceMachineContext): void {
  row.status = ctx.status;
  row.receivedAmount = ctx.receivedAmount;
  row.confirmations = ctx.confirmations;
  row.txHash = ctx.txHash;
  row.paidAt = ctx.paidAt ? new Date(ctx.paidAt) : null;
  row.paidLate = ctx.paidLate;
}

async function writePayments(em: EntityManager, row: Invoice, before: InvoiceMachineContext, ctx: InvoiceMachineContext, details: ReadonlyMap<string, TransferDetails> | null): Promise<void> {
  const previous = new Map(before.payments.map((p) => [p.key, p]));
  for (const p of ctx.payments) {
    const old = previous.get(p.key);
    if (old && old.state === p.state && old.confirmations === p.confirmations && old.blockHeight === p.blockHeight) continue;
    const d = details?.get(p.key);
    const existing = await em.findOne(InvoicePayment, { network: row.network ?? '', txHash: p.txHash, eventIndex: p.eventIndex });
    if (existing) {
      existing.confirmations = p.confirmations;
      existing.state = p.state;
      existing.blockHeight = p.blockHeight;
      if (d) existing.blockHash = d.blockHash;
      existing.late = p.late;
    } else {
      const payment = new InvoicePayment(
        row.uuid,
        d?.network ?? row.network ?? '',
        p.txHash,
        p.eventIndex,
        p.from,
        d?.toAddress ?? row.address ?? '',
        d?.memo ?? null,
        p.amount,
        p.blockHeight,
        d?.blockHash ?? '',
        new Date(p.seenAt),
      );
      payment.confirmations = p.confirmations;
      payment.state = p.state;
      payment.late = p.late;
      em.persist(payment);
    }
  }
}

/**
 * Book confirmed money once the invoice has an outcome; only the difference to what is booked
 * (the journal's key makes a repeat a no-op). Returns the confirmed total now booked, null when nothing was posted.
 */
async function book(em: EntityManager, row: Invoice, ctx: InvoiceMachineContext, now: Date): Promise<string | null> {
  if (!BOOKED_STATUSES.has(ctx.status) || !row.network) return null;
  const confirmed = formatAmount(confirmedTotal(ctx));
  const booked = canonicalDecimal(row.bookedReceived);
  if (confirmed === booked) return null;
  const lines = settlementLines({ merchantId: row.merchantId, network: row.network, booked, confirmed, platformFee: row.platformFee, networkFee: row.networkFee });
  await postJournal(em, `invoice:${row.uuid}:received:${confirmed}`, 'invoice_settlement', lines, now);
  row.bookedReceived = confirmed;
  return confirmed;
}
