import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import { ConflictError, NotFoundError, ValidationError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import { paymentKey } from '../../domain/invoice-payment';
import { Invoice, UnattributedDeposit } from '../../store/entities';
import { recordAudit } from '../../store/repos/audit';
import { markAttributed } from '../../store/repos/deposits';
import { canonicalDecimal } from '../../store/repos/network-settings';
import type { InvoiceActors } from '../invoices/invoice-actors';
import type { NetworkWatcher } from './network-watcher';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface AttributeDepositDeps {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly actors: InvoiceActors;
  readonly watchers: ReadonlyMap<NetworkCode, NetworkWatcher>;
}

export interface AttributeDepositInput {
  readonly depositId: string;
  readonly invoiceUuid: string;
  /** Who did it (audit). */
  readonly actor: string;
}

/**
 * An operator credits an unattributed deposit to an open invoice, exactly once: the transfer is
 * delivered to the invoice actor as TRANSFER_SEEN (keyed by its tx hash and event index, so the
 * machine counts it once) and the deposit is marked attributed, with the audit record, in the
 * SAME transaction as the invoice's new state. A second attempt finds the deposit attributed
 * (409 already_attributed); two racing attempts serialize on the deposit row.
 */
export async function attributeDeposit(deps: AttributeDepositDeps, input: AttributeDepositInput): Promise<UnattributedDeposit> {
  const em = deps.orm.em.fork();
  if (!UUID.test(input.depositId)) throw new NotFoundError('deposit', input.depositId);
  if (!UUID.test(input.invoiceUuid)) throw new NotFoundError('invoice', input.invoiceUuid);
  const deposit = await em.findOne(UnattributedDeposit, { id: input.depositId });
  if (!deposit) throw new NotFoundError('deposit', input.depositId);
  if (deposit.state === 'attributed')
    throw new ConflictError('already_attributed', `deposit is already attributed to invoice ${deposit.invoiceUuid}`, 'deposit_id', { invoice_uuid: deposit.invoiceUuid });
  if (deposit.state !== 'open') throw new ConflictError('deposit_reverted', 'the deposit vanished in a chain reorganisation', 'deposit_id');
  const invoice = await em.findOne(Invoice, { uuid: input.invoiceUuid });
  if (!invoice) throw new NotFoundError('invoice', input.invoiceUuid);
  if (invoice.network !== deposit.network) {
    throw new ValidationError('network_mismatch', `the deposit is on ${deposit.network}, the invoice on ${invoice.network ?? 'no network'}`, 'invoice_uuid');
  }
  if (!deps.actors.has(invoice.uuid)) throw new ConflictError('invoice_not_open', 'the invoice is closed (its late-payment window is over)', 'invoice_uuid');

  const network = deposit.network as NetworkCode;
  const key = paymentKey(deposit);
  const watcher = deps.watchers.get(network);
  const confirmations = Math.max(1, deposit.confirmations, watcher?.confirmationsOf(deposit) ?? 0);
  const at = deps.clock.now();
  const amount = canonicalDecimal(deposit.amount);
  await deps.actors.send(
    invoice.uuid,
    {
      type: 'TRANSFER_SEEN',
      payment: { txHash: deposit.txHash, eventIndex: deposit.eventIndex, from: deposit.fromAddress, amount, blockHeight: deposit.blockHeight, confirmations },
      at: at.toISOString(),
    },
    async (tx) => {
      if (!deps.actors.context(invoice.uuid)?.payments.some((p) => p.key === key)) {
        throw new ConflictError('not_credited', 'the invoice did not take the transfer', 'invoice_uuid');
      }
      // Lost a race with another attempt: roll the whole change back (the actor is rebuilt).
      if (!(await markAttributed(tx, deposit.id, invoice.uuid, input.actor, at))) throw new ConflictError('already_attributed', 'deposit is already attributed', 'deposit_id');
      recordAudit(tx, {
        actor: input.actor,
        action: 'deposit.attribute',
        target: `deposit:${deposit.id}`,
        before: { state: 'open', invoice_uuid: null },
        after: { state: 'attributed', invoice_uuid: invoice.uuid, network, tx_hash: deposit.txHash, event_index: deposit.eventIndex, amount },
        at,
      });
    },
    { key, value: { network, toAddress: deposit.address, memo: deposit.memo, blockHash: deposit.blockHash } },
  );
  if (confirmations < invoice.requiredConfirmations) await watcher?.track(key, invoice.uuid, deposit, confirmations, invoice.requiredConfirmations);
  deps.logger.info(
    { depositId: deposit.id, invoiceUuid: invoice.uuid, merchantId: invoice.merchantId, network, txHash: deposit.txHash, amount, actor: input.actor },
    'unattributed deposit attributed by an operator',
  );
  return (await deps.orm.em.fork().findOne(UnattributedDeposit, { id: deposit.id }))!;
}
