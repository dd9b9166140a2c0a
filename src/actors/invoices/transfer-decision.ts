import type { EntityManager } from '@mikro-orm/postgresql';
import type { InvoiceMachineEvent } from '../../domain/invoice-events';
import { recordUnattributed } from '../../store/repos/deposits';
import { markDecided, type SeenDepositRow } from '../../store/repos/seen-deposits';
import type { TransferDetails } from './invoice-entry';

type TransferSeenEvent = Extract<InvoiceMachineEvent, { type: 'TRANSFER_SEEN' }>;

/** The machine's event for a transfer the watcher recorded. */
export function transferSeenEvent(seen: SeenDepositRow, at: string): TransferSeenEvent {
  return {
    type: 'TRANSFER_SEEN',
    payment: {
      txHash: seen.txHash,
      eventIndex: seen.eventIndex,
      from: seen.from,
      amount: seen.amount,
      blockHeight: seen.blockHeight,
      confirmations: seen.confirmations,
      blockTime: seen.blockTime.toISOString(),
    },
    to: { network: seen.network, address: seen.to, memo: seen.memo?.trim() || null },
    at,
  };
}

/** Where the transfer landed, for its payment row (the machine does not keep it). */
export function transferDetails(seen: SeenDepositRow): { key: string; value: TransferDetails } {
  return { key: `${seen.txHash}:${seen.eventIndex}`, value: { network: seen.network, toAddress: seen.to, memo: seen.memo, blockHash: seen.blockHash } };
}

/**
 * The invoice's decision on a recorded transfer, written in its commit's transaction: the seen row
 * is decided, and a transfer the machine refused (`refusal()` non-null: its target, its late window)
 * is recorded as unattributed there, never dropped and never handed back to the watcher.
 */
export async function writeDecision(em: EntityManager, seen: SeenDepositRow, refusal: string | null, now: Date): Promise<string | undefined> {
  const depositId = refusal === null ? undefined : await recordUnattributed(em, seen, seen.confirmations, refusal, now);
  await markDecided(em, seen.network, seen.txHash, seen.eventIndex);
  return depositId;
}

/**
 * A recorded transfer whose invoice has no actor any more (closed meanwhile): nobody can take it,
 * so it is unattributed (`invoice_closed`) and decided in one transaction.
 */
export async function refuseClosed(em: EntityManager, seen: SeenDepositRow, now: Date): Promise<string | undefined> {
  return em.transactional((tx) => writeDecision(tx, seen, 'invoice_closed', now));
}
