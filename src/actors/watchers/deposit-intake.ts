import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import type { NetworkCode } from '../../domain/networks';
import type { TransferObservation, UnstampedTransfer } from '../../chains/types';
import { builtInFamilies } from '../../chains/families';
import { holderElsewhere } from '../../store/repos/address-pool';
import { invoiceByAddress, invoiceByMemo, knownPayment, type IntendedInvoice, type SeenTransfer } from '../../store/repos/deposits';
import type { SeenDepositRow } from '../../store/repos/seen-deposits';

export interface DepositIntakeDeps {
  readonly network: NetworkCode;
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
  /**
   * The network's index space (FamilyRegistry.indexSpace): the networks that derive the same
   * addresses. Default: the built-in families' (builtInFamilies).
   */
  readonly indexSpace?: string;
}

/** A transfer to one of our addresses that names no open invoice, with why. */
export interface UnattributedSeen {
  readonly transfer: SeenTransfer;
  readonly confirmations: number;
  readonly reason: string;
  /** wrong_network: the invoice holding the address on another network of the family. */
  readonly intended?: IntendedInvoice | null;
}

/** What the watcher records of one block's transfers (in the transaction that moves its cursor). */
export class StepRecord {
  /** Keyed by tx hash + event index: a step emitted again (the follower retries) records each once. */
  readonly seen = new Map<string, SeenDepositRow>();
  readonly unattributed = new Map<string, UnattributedSeen>();

  get empty(): boolean {
    return this.seen.size === 0 && this.unattributed.size === 0;
  }

  /** A reorg replaced the blocks above `height`: what was buffered of them is not recorded. */
  dropAbove(height: number): void {
    for (const [key, r] of this.seen) if (r.blockHeight > height) this.seen.delete(key);
    for (const [key, u] of this.unattributed) if (u.transfer.blockHeight > height) this.unattributed.delete(key);
  }
}

/**
 * Which invoice a transfer is for. Reads only what the chain showed and the address/memo tables;
 * the invoice actor decides whether it takes it.
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

  /**
   * Why a transfer that names no invoice is unattributed. To an address an invoice holds on another
   * network of the index space (the buyer paid on the wrong EVM chain): `wrong_network`, naming that
   * invoice for the operator; it credits no invoice (the money is on this network, not the invoice's).
   */
  async unattributedFor(t: TransferObservation): Promise<{ reason: string; intended: IntendedInvoice | null }> {
    if (this.sharedAddress !== null && t.to === this.sharedAddress) return { reason: t.memo ? 'unknown_memo' : 'missing_memo', intended: null };
    const space = this.deps.indexSpace ?? builtInFamilies().indexSpace(this.deps.network);
    const holder = space === this.deps.network ? null : await holderElsewhere(this.deps.orm.em.fork(), space, this.deps.network, t.to);
    return holder ? { reason: 'wrong_network', intended: { invoiceUuid: holder.invoiceUuid, network: holder.network } } : { reason: 'free_pool_address', intended: null };
  }

  /** Logged once the record is committed (with the cursor). */
  logUnattributed(u: UnattributedSeen, depositId: string | undefined): void {
    const t = u.transfer;
    this.deps.logger.warn(
      {
        depositId,
        network: t.network,
        txHash: t.txHash,
        eventIndex: t.eventIndex,
        address: t.to,
        memo: t.memo,
        amount: t.amount,
        reason: u.reason,
        intendedInvoiceUuid: u.intended?.invoiceUuid,
        intendedNetwork: u.intended?.network,
      },
      u.reason === 'wrong_network'
        ? 'unattributed deposit recorded: paid on the wrong network (the address belongs to an invoice of another network); an operator resolves it'
        : 'unattributed deposit recorded',
    );
  }
}
