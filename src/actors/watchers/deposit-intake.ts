import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import type { NetworkCode } from '../../domain/networks';
import type { TransferObservation, UnstampedTransfer } from '../../chains/types';
import { invoiceByAddress, invoiceByMemo, knownPayment, recordUnattributed } from '../../store/repos/deposits';

export interface DepositIntakeDeps {
  readonly network: NetworkCode;
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
}

/**
 * Which invoice a transfer is for, and the record of those no open invoice takes. Reads only what
 * the chain showed and the address/memo tables; the invoice actor decides whether it takes it.
 */
export class DepositIntake {
  /** The shared memo address (master_memo networks), normalized; null on address_pool networks. */
  sharedAddress: string | null = null;

  constructor(private readonly deps: DepositIntakeDeps) {}

  /** A payment row of this transfer (an invoice took it before), else null. */
  known(t: UnstampedTransfer): Promise<{ state: string; invoiceUuid: string } | null> {
    return knownPayment(this.deps.orm.em.fork(), this.deps.network, t.txHash, t.eventIndex);
  }

  /** The invoice the transfer's address (or memo on the shared address) names, null when none does. */
  async resolveInvoice(t: UnstampedTransfer): Promise<string | null> {
    const em = this.deps.orm.em.fork();
    if (this.sharedAddress !== null && t.to === this.sharedAddress) return t.memo ? invoiceByMemo(em, this.deps.network, t.memo.trim()) : null;
    return invoiceByAddress(em, this.deps.network, t.to);
  }

  /** Why a transfer that names no invoice is unattributed. */
  reasonFor(t: TransferObservation): string {
    if (this.sharedAddress !== null && t.to === this.sharedAddress) return t.memo ? 'unknown_memo' : 'missing_memo';
    return 'free_pool_address';
  }

  async recordUnattributed(t: TransferObservation, confirmations: number, reason: string): Promise<void> {
    const depositId = await recordUnattributed(this.deps.orm.em.fork(), t, confirmations, reason, this.deps.clock.now());
    this.deps.logger.warn({ depositId, network: t.network, txHash: t.txHash, eventIndex: t.eventIndex, address: t.to, memo: t.memo, amount: t.amount, reason }, 'unattributed deposit recorded');
  }
}
