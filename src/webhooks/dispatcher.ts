import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { EventSubscriber } from '@mikro-orm/core';
import type { Logger } from 'pino';
import type { Clock } from '../domain/clock';
import { OutboxEvent } from '../store/entities';
import type { MerchantsRepo } from '../store/repos/merchants';
import type { Resolver } from './address-guard';
import { attemptDelivery } from './delivery';
import { SendAbortedError } from './send';
import { onOutboxEventsCommitted } from './outbox';

/** A delivery attempt must get the status line within this time (the README promises 15 s). */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 15_000;

export interface DispatcherOptions {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly clock: Clock;
  readonly merchants: MerchantsRepo;
  readonly allowPrivateTargets: boolean;
  /** How often due events are looked for; also how soon a devnet clock jump is noticed. */
  readonly pollMs?: number;
  /** Deliveries in flight at once (each holds one database connection while it runs). */
  readonly concurrency?: number;
  /** Per-attempt timeout; default DEFAULT_ATTEMPT_TIMEOUT_MS. */
  readonly timeoutMs?: number;
  /** Tests only: trusted CAs. Production trusts Node's store plus NODE_EXTRA_CA_CERTS. */
  readonly ca?: string | Buffer;
  readonly resolver?: Resolver;
}

/**
 * Claims one due event. It must be pending, due on the daemon clock, and the oldest pending event
 * of its aggregate (in order per invoice/withdrawal). SKIP LOCKED lets several daemons (and several
 * workers) share the outbox: the row lock is held for the whole attempt, and a crashed daemon's
 * lock dies with its connection, so the event is simply pending again.
 */
const CLAIM_SQL = `
  select e.id from outbox_events e
  where e.status = 'pending' and e.next_attempt_at <= ?
    and not exists (select 1 from outbox_events p where p.aggregate_id = e.aggregate_id and p.seq < e.seq and p.status = 'pending')
  order by e.next_attempt_at, e.seq
  limit 1
  for update of e skip locked`;

/** What every delivery log line names: the event, its merchant and its invoice or withdrawal. */
export function eventLogFields(event: OutboxEvent): Record<string, string> {
  const aggregate = event.aggregateType === 'invoice' ? 'invoiceUuid' : 'withdrawalUuid';
  return { eventId: event.id, type: event.type, merchantId: event.merchantId, [aggregate]: event.aggregateId };
}

/** Delivers the outbox: polls on the daemon clock, wakes up when an event is committed. */
export class WebhookDispatcher {
  private readonly pollMs: number;
  private readonly concurrency: number;
  private readonly abort = new AbortController();
  private readonly running = new Set<Promise<void>>();
  private interval: NodeJS.Timeout | null = null;
  private unsubscribe: (() => void) | null = null;
  private active = 0;
  private searching = 0;
  private pausedUntil = 0;
  private committedEvent = false;
  /** A kick arrived while a search was running (it may have missed the new event): search again. */
  private again = false;

  constructor(private readonly o: DispatcherOptions) {
    this.pollMs = o.pollMs ?? 250;
    this.concurrency = o.concurrency ?? 4;
  }

  start(): void {
    if (this.interval) return;
    this.o.orm.em.getEventManager().registerSubscriber(this.commitWatcher());
    // Events committed with raw SQL (withdrawals) are announced instead of flushed.
    this.unsubscribe = onOutboxEventsCommitted(this.o.orm, () => setImmediate(() => this.kick()));
    this.interval = setInterval(() => this.kick(), this.pollMs);
    this.interval.unref();
    this.kick();
  }

  /** Look for due events now (new event committed, redelivery queued). */
  kick(): void {
    if (this.abort.signal.aborted || Date.now() < this.pausedUntil) return;
    if (this.searching === 0) this.spawn();
    else this.again = true;
  }

  /** Stops polling and aborts in-flight attempts; their transactions roll back (still pending). */
  async stop(): Promise<void> {
    if (this.interval) clearInterval(this.interval);
    this.interval = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.abort.abort();
    await Promise.allSettled([...this.running]);
  }

  private spawn(): void {
    if (this.abort.signal.aborted || this.active >= this.concurrency) return;
    this.active++;
    const run = this.work().finally(() => {
      this.active--;
      this.running.delete(run);
    });
    this.running.add(run);
  }

  private async work(): Promise<void> {
    while (!this.abort.signal.aborted) {
      this.searching++;
      this.again = false;
      let searched = false;
      try {
        const claimed = await this.o.orm.em.fork().transactional(async (tx) => {
          const event = await this.claim(tx);
          this.searching--;
          searched = true;
          if (!event) return false;
          this.spawn(); // there may be more due events: let another worker look
          const result = await attemptDelivery(tx, event, {
            clock: this.o.clock,
            merchants: this.o.merchants,
            send: { allowPrivate: this.o.allowPrivateTargets, timeoutMs: this.o.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS, ca: this.o.ca, resolver: this.o.resolver },
            signal: this.abort.signal,
          });
          const log = { ...eventLogFields(event), attempt: event.attempts, status: event.status, statusCode: result.statusCode, latencyMs: result.latencyMs, error: result.error };
          if (result.ok) this.o.logger.info(log, 'webhook delivered');
          else this.o.logger.warn(log, 'webhook attempt failed');
          return true;
        });
        if (!claimed && !this.again) return;
      } catch (err) {
        if (!searched) this.searching--;
        if (err instanceof SendAbortedError || this.abort.signal.aborted) return;
        // Database trouble: do not hammer it four times a second.
        this.pausedUntil = Date.now() + 5_000;
        this.o.logger.error({ err }, 'webhook dispatch failed; retrying in 5 s');
        return;
      }
    }
  }

  private async claim(tx: EntityManager): Promise<OutboxEvent | null> {
    const rows = await tx.execute<{ id: string }[]>(CLAIM_SQL, [this.o.clock.now()]);
    return rows[0] ? tx.findOneOrFail(OutboxEvent, { id: rows[0].id }) : null;
  }

  /** Wakes the dispatcher right after a transaction that wrote outbox events commits. */
  private commitWatcher(): EventSubscriber {
    return {
      getSubscribedEntities: () => [OutboxEvent],
      afterCreate: ({ entity, em }) => {
        if (!(entity instanceof OutboxEvent)) return;
        if (em.isInTransaction()) this.committedEvent = true;
        else setImmediate(() => this.kick());
      },
      afterTransactionCommit: () => {
        if (!this.committedEvent) return;
        this.committedEvent = false;
        setImmediate(() => this.kick());
      },
    };
  }
}
