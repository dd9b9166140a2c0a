import type { Logger } from 'pino';
import type { Clock } from '../../domain/clock';
import type { InvoiceMachineEvent } from '../../domain/invoice-events';
import { AWAITING_CHAIN_TAG } from '../../domain/invoice-machine';
import type { InvoiceActor } from './invoice-entry';

export interface ChainWaitDeps {
  readonly logger: Logger;
  readonly clock: Clock;
  /** The open invoice's actor and network (undefined once it is no longer open). */
  readonly lookup: (uuid: string) => { actor: InvoiceActor; network: string | null } | undefined;
  /** Deliver and commit through the invoice's queue. */
  readonly send: (uuid: string, event: InvoiceMachineEvent) => Promise<void>;
}

/**
 * Invoices whose actor sits in an `awaitingChain` state (past expires_at, the watcher has not yet
 * processed the chain that far) and the chain time each network's watcher last pushed (push: every
 * block it committed, and the time an idle watch vouches for). CHAIN_TIME goes to a waiting invoice
 * once that time reached its expires_at: when it starts waiting, or when its watcher pushes. No
 * timer, no poll. The machine decides; this only carries the watcher's time to it.
 */
export class ChainWait {
  /** Waiting invoices by network. */
  private readonly waiting = new Map<string, Set<string>>();
  private readonly sending = new Set<string>();
  /** The latest chain time each network's watcher pushed (every block stamped before it is processed). */
  private readonly chainTimes = new Map<string, Date>();

  constructor(private readonly deps: ChainWaitDeps) {}

  /** After every change of an actor: start or stop waiting on its tag. */
  note(uuid: string, actor: InvoiceActor): void {
    const network = this.deps.lookup(uuid)?.network ?? null;
    if (!actor.getSnapshot().hasTag(AWAITING_CHAIN_TAG) || network === null) {
      this.forget(uuid);
      return;
    }
    let set = this.waiting.get(network);
    if (!set) this.waiting.set(network, (set = new Set()));
    if (set.has(uuid)) return;
    set.add(uuid);
    this.offer(uuid, network);
  }

  /** A watcher's push: its processed chain time moved to `chainTime` (never back). */
  advance(network: string, chainTime: Date): void {
    const known = this.chainTimes.get(network);
    if (known !== undefined && known.getTime() >= chainTime.getTime()) return;
    this.chainTimes.set(network, chainTime);
    for (const uuid of this.waiting.get(network) ?? []) this.offer(uuid, network);
  }

  forget(uuid: string): void {
    for (const set of this.waiting.values()) set.delete(uuid);
  }

  stop(): void {
    this.waiting.clear();
  }

  /** Sends CHAIN_TIME once the network's chain time reached expires_at (one commit per invoice at a time). */
  private offer(uuid: string, network: string): void {
    const open = this.deps.lookup(uuid);
    const snapshot = open?.actor.getSnapshot();
    if (!open || !snapshot?.hasTag(AWAITING_CHAIN_TAG)) {
      this.waiting.get(network)?.delete(uuid);
      return;
    }
    if (this.sending.has(uuid)) return;
    const chainTime = this.chainTimes.get(network) ?? null;
    if (chainTime === null || chainTime.getTime() < Date.parse(snapshot.context.expiresAt)) return;
    this.sending.add(uuid);
    this.deps
      .send(uuid, { type: 'CHAIN_TIME', chainTime: chainTime.toISOString(), at: this.deps.clock.now().toISOString() })
      .catch((err: unknown) => this.deps.logger.error({ err, invoiceUuid: uuid }, 'committing the chain time failed'))
      .finally(() => {
        this.sending.delete(uuid);
        // Still waiting (the commit failed, or the machine needs a later time): the next push offers again.
      });
  }
}
