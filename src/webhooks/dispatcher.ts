import type { MikroORM } from '@mikro-orm/postgresql';
import type { EventSubscriber } from '@mikro-orm/core';
import type { Logger } from 'pino';
import type { RequestLoad } from '../actors/request-load';
import type { Clock } from '../domain/clock';
import { OutboxEvent } from '../store/entities';
import { RawSql } from '../store/raw-sql';
import type { MerchantsRepo } from '../store/repos/merchants';
import type { Resolver } from './address-guard';
import { attemptDelivery, claimDueEvent, keepUnaddressedEvents, type ClaimedEvent } from './delivery';
import { SendAbortedError } from './send';
import { onOutboxEventsCommitted } from './outbox';

/** A delivery attempt must get the status line within this time (the README promises 15 s). */
export const DEFAULT_ATTEMPT_TIMEOUT_MS = 15_000;

/** Events without a webhook URL kept as unaddressed per statement (keepUnaddressedEvents). */
const UNADDRESSED_BATCH = 200;

/**
 * Commits that wrote outbox events wake the dispatcher at most once per this many ms. Each wake-up
 * is a search (the bulk statement for events without a URL, then a claim); waking on every commit
 * made a burst of 1,000 withdrawals (~200 creating transactions, each announcing its events) cost
 * ~1,000 searches, each walking the events still pending: ~1.5 M index entries read per burst,
 * measured with pg_stat_user_indexes. A delivery starts at most this much later.
 */
export const COMMIT_WAKE_MS = 20;

/**
 * While merchant requests that write are in flight (RequestLoad), events without a URL are set
 * aside at most once per this many ms, not on every wake-up: that bookkeeping waits for nobody (the
 * event only changes from pending to unaddressed, redeliverable), and in a burst of 1,000 withdrawals
 * its ~15 statements took ~15% of PostgreSQL's execution time (pg_stat_statements). Never paused
 * outright, so a daemon that is never idle still works through them.
 */
export const UNADDRESSED_BUSY_INTERVAL_MS = 250;

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
  /** Writing requests in flight: events without a URL are set aside less often meanwhile. */
  readonly requestLoad?: RequestLoad;
  /** How often at most, meanwhile; default UNADDRESSED_BUSY_INTERVAL_MS. */
  readonly unaddressedBusyIntervalMs?: number;
  /** Tests only: trusted CAs. Production trusts Node's store plus NODE_EXTRA_CA_CERTS. */
  readonly ca?: string | Buffer;
  readonly resolver?: Resolver;
}

/** What every delivery log line names: the event, its merchant and its invoice or withdrawal. */
export function eventLogFields(event: Pick<ClaimedEvent, 'id' | 'type' | 'merchantId' | 'aggregateType' | 'aggregateId'>): Record<string, string> {
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
  /** A wake-up after commits is scheduled (kickSoon). */
  private wakeTimer: NodeJS.Timeout | null = null;
  /** One worker at a time runs the statement that sets aside events without a URL (the others would skip its locked rows). */
  private keepingUnaddressed = false;
  /** When that statement last started (performance.now()). */
  private unaddressedAt = Number.NEGATIVE_INFINITY;
  /**
   * A search skipped that statement because requests were in flight: the end of the last one runs
   * it. Only then: waking on every idle moment was a search (BEGIN, claim, COMMIT) each time the
   * daemon's writing requests in flight fell to zero, ~20 a second under a closed loop of invoice
   * creations, about a third of the daemon's statements there, with nothing to find.
   */
  private unaddressedDeferred = false;
  private unsubscribeIdle: (() => void) | null = null;
  /** A kick arrived while a search was running (it may have missed the new event): search again. */
  private again = false;
  /** Claims and attempts run on raw SQL: per event, four statements instead of the unit of work's ~3 ms of CPU (measured). */
  private readonly sql: RawSql;
  private readonly attemptLog: Logger;

  constructor(private readonly o: DispatcherOptions) {
    this.pollMs = o.pollMs ?? 250;
    this.concurrency = o.concurrency ?? 4;
    this.sql = new RawSql(o.orm);
    // A line per attempt of ids, a status and a timing, never a secret: no redaction pass.
    this.attemptLog = o.logger.child({}, { redact: [] });
  }

  start(): void {
    if (this.interval) return;
    this.o.orm.em.getEventManager().registerSubscriber(this.commitWatcher());
    // Events committed with raw SQL (withdrawals) are announced instead of flushed.
    this.unsubscribe = onOutboxEventsCommitted(this.o.orm, () => this.kickSoon());
    // What waited for the requests in flight is set aside as soon as none is.
    this.unsubscribeIdle =
      this.o.requestLoad?.onIdle(() => {
        if (this.unaddressedDeferred) this.kickSoon();
      }) ?? null;
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

  /** kick() once, COMMIT_WAKE_MS from the first of the commits that call this meanwhile. */
  private kickSoon(): void {
    if (this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = null;
      this.kick();
    }, COMMIT_WAKE_MS);
  }

  /** Stops polling and aborts in-flight attempts; their transactions roll back (still pending). */
  async stop(): Promise<void> {
    if (this.interval) clearInterval(this.interval);
    this.interval = null;
    if (this.wakeTimer) clearTimeout(this.wakeTimer);
    this.wakeTimer = null;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.unsubscribeIdle?.();
    this.unsubscribeIdle = null;
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
        // Events with nowhere to go first, many per statement; then one event to send.
        const kept = await this.keepUnaddressed();
        const claimed = await this.sql.transaction(async (q) => {
          const event = await claimDueEvent(q, this.o.clock.now());
          this.searching--;
          searched = true;
          if (!event) return false;
          this.spawn(); // there may be more due events: let another worker look
          const outcome = await attemptDelivery(q, event, {
            clock: this.o.clock,
            openSecret: (sealed) => this.o.merchants.openSecret(sealed),
            send: { allowPrivate: this.o.allowPrivateTargets, timeoutMs: this.o.timeoutMs ?? DEFAULT_ATTEMPT_TIMEOUT_MS, ca: this.o.ca, resolver: this.o.resolver },
            signal: this.abort.signal,
          });
          const { result } = outcome;
          const log = { ...eventLogFields(event), attempt: outcome.attempts, status: outcome.status, statusCode: result.statusCode, latencyMs: result.latencyMs, error: result.error };
          if (result.ok) this.attemptLog.info(log, 'webhook delivered');
          else this.attemptLog.warn(log, 'webhook attempt failed');
          return true;
        });
        if (!claimed && kept === 0 && !this.again) return;
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

  /**
   * Sets aside due events that have no webhook URL, in bulk; how many (0 also when another worker
   * is at it). A merchant without a URL polls: no WARN line, no failed attempt, nothing an alert
   * on failed deliveries would count (keepUnaddressedEvents). One debug line per event.
   */
  private async keepUnaddressed(): Promise<number> {
    if (this.keepingUnaddressed) return 0;
    if (this.o.requestLoad?.busy && performance.now() - this.unaddressedAt < (this.o.unaddressedBusyIntervalMs ?? UNADDRESSED_BUSY_INTERVAL_MS)) {
      this.unaddressedDeferred = true;
      return 0;
    }
    this.unaddressedDeferred = false;
    this.unaddressedAt = performance.now();
    this.keepingUnaddressed = true;
    try {
      const kept = await keepUnaddressedEvents(this.sql.query, this.o.clock.now(), UNADDRESSED_BATCH);
      if (this.attemptLog.isLevelEnabled('debug')) {
        for (const event of kept) this.attemptLog.debug({ ...eventLogFields(event), status: 'unaddressed' }, 'webhook event kept: no webhook URL');
      }
      return kept.length;
    } finally {
      this.keepingUnaddressed = false;
    }
  }

  /** Wakes the dispatcher right after a transaction that wrote outbox events commits. */
  private commitWatcher(): EventSubscriber {
    return {
      getSubscribedEntities: () => [OutboxEvent],
      afterCreate: ({ entity, em }) => {
        if (!(entity instanceof OutboxEvent)) return;
        if (em.isInTransaction()) this.committedEvent = true;
        else this.kickSoon();
      },
      afterTransactionCommit: () => {
        if (!this.committedEvent) return;
        this.committedEvent = false;
        this.kickSoon();
      },
    };
  }
}
