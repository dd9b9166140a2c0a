import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import type { InvoiceMachineEvent } from '../../domain/invoice-events';
import { AWAITING_CHAIN_TAG } from '../../domain/invoice-machine';
import type { InvoiceActor } from './invoice-entry';

/** How often invoices past expires_at ask their watcher's chain time again (real time; a poll). */
const CHAIN_TIME_POLL_MS = 250;

export interface ChainWaitDeps {
  readonly logger: Logger;
  readonly clock: Clock;
  /**
   * The network watcher's processed chain time (every block stamped before it is processed),
   * null while unknown (paused, halted, lagging with no block yet): its invoices wait.
   */
  readonly chainTime?: (network: string) => Date | null;
  /** The open invoice's actor and network (undefined once it is no longer open). */
  readonly lookup: (uuid: string) => { actor: InvoiceActor; network: string | null } | undefined;
  /** Deliver and commit through the invoice's queue. */
  readonly send: (uuid: string, event: InvoiceMachineEvent) => Promise<void>;
}

/**
 * Invoices whose actor sits in an `awaitingChain` state (past expires_at, the watcher has not yet
 * processed the chain that far): asks their watcher's chain time now and then and sends CHAIN_TIME
 * once it reached expires_at. The machine decides; this only carries the watcher's time to it.
 */
export class ChainWait {
  private readonly waiting = new Set<string>();
  private readonly sending = new Set<string>();
  private poll: NodeJS.Timeout | null = null;

  constructor(private readonly deps: ChainWaitDeps) {}

  /** After every change of an actor: start or stop waiting on its tag. */
  note(uuid: string, actor: InvoiceActor): void {
    if (!actor.getSnapshot().hasTag(AWAITING_CHAIN_TAG)) {
      this.waiting.delete(uuid);
      return;
    }
    if (!this.waiting.has(uuid)) {
      this.waiting.add(uuid);
      this.offer(uuid);
    }
    if (this.poll === null) {
      this.poll = setInterval(() => this.pollAll(), CHAIN_TIME_POLL_MS);
      this.poll.unref?.();
    }
  }

  forget(uuid: string): void {
    this.waiting.delete(uuid);
  }

  stop(): void {
    if (this.poll !== null) clearInterval(this.poll);
    this.poll = null;
    this.waiting.clear();
  }

  private pollAll(): void {
    for (const uuid of this.waiting) this.offer(uuid);
    if (this.waiting.size === 0 && this.poll !== null) {
      clearInterval(this.poll);
      this.poll = null;
    }
  }

  /** Sends CHAIN_TIME once the watcher's chain time reached expires_at (one commit per invoice). */
  private offer(uuid: string): void {
    const open = this.deps.lookup(uuid);
    if (!open) {
      this.waiting.delete(uuid);
      return;
    }
    if (this.sending.has(uuid) || open.network === null) return;
    const snapshot = open.actor.getSnapshot();
    if (!snapshot.hasTag(AWAITING_CHAIN_TAG)) {
      this.waiting.delete(uuid);
      return;
    }
    const chainTime = this.deps.chainTime?.(open.network) ?? null;
    if (chainTime === null || chainTime.getTime() < Date.parse(snapshot.context.expiresAt)) return;
    this.sending.add(uuid);
    this.deps
      .send(uuid, { type: 'CHAIN_TIME', chainTime: chainTime.toISOString(), at: this.deps.clock.now().toISOString() })
      .catch((err: unknown) => this.deps.logger.error({ err, invoiceUuid: uuid }, 'committing the chain time failed'))
      .finally(() => this.sending.delete(uuid));
  }
}
