import { createActor, type Actor, type AnyActorRef, type Snapshot } from 'xstate';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../domain/clock';
import type { InvoiceMachineContext } from '../../domain/invoice-context';
import { invoiceMachine } from '../../domain/invoice-machine';
import type { Invoice } from '../../store/entities';

export type InvoiceActor = Actor<typeof invoiceMachine>;

/** Where a transfer landed, which the pure machine does not keep but the payment row does. */
export interface TransferDetails {
  readonly network: string;
  readonly toAddress: string;
  readonly memo: string | null;
  readonly blockHash: string;
}

/** Extra writes that belong in the same transaction as the actor's new state. */
export type UnitOfWork = (em: EntityManager, row: Invoice) => Promise<void>;

/** One open invoice's actor and its queue (InvoiceActors). */
export interface Entry {
  actor: InvoiceActor;
  queue: Promise<void>;
  /** Runs chained on `queue` and not yet settled: 0 means nothing is queued for this invoice. */
  queued: number;
  /** The context last committed with the row. */
  persisted: InvoiceMachineContext;
  persistedSnapshot: unknown;
  network: string | null;
  /** Where each seen transfer landed; created on the first transfer (most invoices never see one). */
  details: Map<string, TransferDetails> | null;
  /** False while the host itself delivers an event (it commits that change; the subscription must not). */
  watching: boolean;
}

/** The queue of an invoice with nothing queued (one shared settled promise, not one per actor). */
export const SETTLED: Promise<void> = Promise.resolve();

/**
 * Restore from a persisted snapshot; XState ignores `input` when a snapshot is given. Snapshots of
 * any version of the machine restore: an open state written before it had substates resumes in
 * its `running` substate (XState enters a compound state's initial child).
 */
export function restoreActor(persisted: unknown, clock: Clock, parent: AnyActorRef): InvoiceActor {
  const snapshot = persisted as Snapshot<unknown> & { context: InvoiceMachineContext };
  return createActor(invoiceMachine, { snapshot, input: snapshot.context, clock, parent });
}

/** Equal in everything but `observedAt` (payments compared entry by entry): nothing the row or the outbox shows changed. */
export function onlyTimeMoved(a: InvoiceMachineContext, b: InvoiceMachineContext): boolean {
  if (a === b) return true;
  for (const key of Object.keys(b) as Array<keyof InvoiceMachineContext>) {
    if (key === 'observedAt' || a[key] === b[key]) continue;
    if (key !== 'payments' || a.payments.length !== b.payments.length) return false;
    for (let i = 0; i < a.payments.length; i++) {
      const p = a.payments[i]!;
      const q = b.payments[i]!;
      if (p !== q && (Object.keys(q) as Array<keyof typeof q>).some((k) => p[k] !== q[k])) return false;
    }
  }
  return Object.keys(a).length === Object.keys(b).length;
}
