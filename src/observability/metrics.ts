import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { NetworkCode } from '../domain/networks';
import type { RpcObservation } from '../chains/types';
import type { ActorActivity } from '../actors/introspection/activity';
import type { InvoiceActors } from '../actors/invoices/invoice-actors';
import type { WithdrawalActors } from '../actors/withdrawals/withdrawal-actors';
import type { NetworkWatcher } from '../actors/watchers/network-watcher';
import { readDbFigures, type DbFigures } from './db-gauges';

export interface MetricsSources {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly watchers: ReadonlyMap<NetworkCode, NetworkWatcher>;
  readonly invoices: InvoiceActors;
  readonly withdrawals: WithdrawalActors;
  readonly watcherActivity: ActorActivity;
  /** The health monitor's last database probe. */
  readonly databaseUp: () => boolean;
}

const WATCHER_STATES = ['starting', 'running', 'paused', 'halted', 'stopped'] as const;
const OUTCOMES = new Set(['paid', 'overpaid', 'underpaid', 'expired', 'canceled']);
/** `unaddressed`: kept, not sent, no webhook URL (a polling merchant); not a failure. */
const WEBHOOK_STATUSES = ['pending', 'delivered', 'failed', 'unaddressed'] as const;
/** Figures from the database are read at most this often, however many series ask. */
const DB_CACHE_MS = 500;

/**
 * The daemon's Prometheus metrics. Live figures (watchers, actors) are read from the hosts at
 * scrape time; queue and ledger figures from the database at scrape time; events (RPC errors,
 * alerts, invoice outcomes) are counted as they happen, from the actors' activity feeds.
 * Metric values are floats by nature: ledger sums are converted from decimal strings only here.
 */
export class DaemonMetrics {
  readonly registry = new Registry();
  private readonly unsubscribe: Array<() => void> = [];
  private dbRead: { at: number; figures: Promise<DbFigures | null> } | null = null;
  private readonly rpcSeconds: Histogram<'network' | 'method' | 'outcome'>;

  /** One chain RPC round trip (failures are also counted per watcher in chainpay_watcher_rpc_errors_total). */
  observeRpc(o: RpcObservation): void {
    this.rpcSeconds.observe({ network: o.network, method: o.method, outcome: o.ok ? 'ok' : 'error' }, o.ms / 1000);
  }

  constructor(private readonly sources: MetricsSources) {
    const r = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    // Gauges named *_total break the Prometheus naming rules (promtool check metrics): left out.
    for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) this.registry.removeSingleMetric(name);
    const self = this;
    const watcherGauge = (name: string, help: string, pick: (s: ReturnType<NetworkWatcher['status']>) => number): Gauge<'network'> =>
      new Gauge({
        name,
        help,
        labelNames: ['network'],
        registers: r,
        collect() {
          for (const w of sources.watchers.values()) this.set({ network: w.network }, pick(w.status()));
        },
      });
    watcherGauge('chainpay_watcher_head_block', 'Chain head height as last seen by the watcher.', (s) => s.head);
    watcherGauge('chainpay_watcher_cursor_block', 'Last block whose observations were all committed.', (s) => s.cursor);
    watcherGauge('chainpay_watcher_lag_blocks', 'Blocks between the chain head and the watcher cursor.', (s) => s.lagBlocks);
    watcherGauge('chainpay_watcher_lag_seconds', 'Seconds the first unprocessed block has waited (0 when caught up).', (s) => s.lagSeconds);
    watcherGauge('chainpay_watcher_rpc_healthy', '1 when the watcher had no RPC failure since its last successful step.', (s) => (s.rpcHealthy ? 1 : 0));
    watcherGauge('chainpay_watcher_watched_addresses', 'Addresses the watcher matches transfers against.', (s) => s.watched);
    watcherGauge('chainpay_address_pool_halted', '1 when the deposit-address pool refill stopped: two independent derivations of an address differed.', (s) =>
      s.addressPool.state === 'halted' ? 1 : 0,
    );
    // The run loop of every watch (sync/run-loop.ts), the same figures for every family; totals over
    // every watch a watcher ran, read at scrape time (they never go back while the daemon runs).
    const loopCounter = (name: string, help: string, pick: (t: ReturnType<NetworkWatcher['loopTotals']>) => number): Counter<'network'> =>
      new Counter({
        name,
        help,
        labelNames: ['network'],
        registers: r,
        collect() {
          this.reset();
          for (const w of sources.watchers.values()) this.inc({ network: w.network }, pick(w.loopTotals()));
        },
      });
    loopCounter('chainpay_watcher_loop_steps_total', 'Steps the watch run loop completed (idle or not).', (t) => t.steps);
    loopCounter('chainpay_watcher_loop_retries_total', 'Failed watch steps retried after a backoff (retryable error classes).', (t) => t.retries);
    new Counter({
      name: 'chainpay_watcher_loop_errors_total',
      help: 'Failed watch steps by error class, retried or fatal (a fatal one halts the watcher).',
      labelNames: ['network', 'class'],
      registers: r,
      collect() {
        this.reset();
        for (const w of sources.watchers.values()) for (const [cls, n] of Object.entries(w.loopTotals().errors)) this.inc({ network: w.network, class: cls }, n);
      },
    });
    new Gauge({
      name: 'chainpay_watcher_state',
      help: 'Watcher state (1 for the current state).',
      labelNames: ['network', 'state'],
      registers: r,
      collect() {
        for (const w of sources.watchers.values()) {
          const current = w.status().state;
          for (const state of WATCHER_STATES) this.set({ network: w.network, state }, state === current ? 1 : 0);
        }
      },
    });
    const rpcErrors = new Counter({
      name: 'chainpay_watcher_rpc_errors_total',
      help: 'Chain RPC / scan failures reported to the watcher (retried unless halted).',
      labelNames: ['network', 'code'],
      registers: r,
    });
    this.rpcSeconds = new Histogram({
      name: 'chainpay_chain_rpc_duration_seconds',
      help: 'Chain JSON-RPC round trips of the live adapters, by method and outcome.',
      labelNames: ['network', 'method', 'outcome'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 15],
      registers: r,
    });
    const alerts = new Counter({
      name: 'chainpay_watcher_alerts_total',
      help: 'Watchers halted by a non-retryable error (e.g. reorg beyond finality).',
      labelNames: ['network', 'code'],
      registers: r,
    });
    const blockSeconds = new Histogram({
      name: 'chainpay_watcher_block_processing_seconds',
      help: 'Time to apply one block (confirmations to invoices, cursor commit).',
      labelNames: ['network'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: r,
    });
    const countWatcherEvent = (rec: { id: string; type: string; payload: unknown }): void => {
      const p = (rec.payload ?? {}) as { code?: string | null; took_ms?: number };
      if (rec.type === 'error') rpcErrors.inc({ network: rec.id, code: p.code ?? 'error' });
      else if (rec.type === 'halted') alerts.inc({ network: rec.id, code: p.code ?? 'non_retryable' });
      else if (rec.type === 'committed' && typeof p.took_ms === 'number') blockSeconds.observe({ network: rec.id }, p.took_ms / 1000);
    };
    // Watchers run before these counters exist (start-up catch-up): a watcher that halted then (e.g.
    // its saved final block was replaced while the daemon was down) must still raise the alert.
    for (const w of sources.watchers.values()) for (const rec of sources.watcherActivity.last(w.network)) if (rec.type === 'halted' || rec.type === 'error') countWatcherEvent(rec);
    this.unsubscribe.push(sources.watcherActivity.subscribe(countWatcherEvent));
    for (const w of sources.watchers.values()) rpcErrors.inc({ network: w.network, code: 'rpc_unavailable' }, 0);

    new Gauge({
      name: 'chainpay_actors_open',
      help: 'Live actors by kind and status.',
      labelNames: ['kind', 'status'],
      registers: r,
      collect() {
        this.reset();
        const count = (kind: string, statuses: Iterable<string>): void => {
          const n = new Map<string, number>();
          for (const s of statuses) n.set(s, (n.get(s) ?? 0) + 1);
          for (const [status, v] of n) this.set({ kind, status }, v);
        };
        count(
          'invoice',
          [...sources.invoices.uuids()].map((u) => sources.invoices.context(u)?.status ?? 'unknown'),
        );
        count(
          'withdrawal',
          [...sources.withdrawals.uuids()].map((u) => sources.withdrawals.context(u)?.status ?? 'unknown'),
        );
        count(
          'watcher',
          [...sources.watchers.values()].map((w) => w.status().state),
        );
      },
    });
    const outcomes = new Counter({ name: 'chainpay_invoice_outcomes_total', help: 'Invoices reaching an outcome, by status.', labelNames: ['status'], registers: r });
    for (const status of OUTCOMES) outcomes.inc({ status }, 0);
    this.unsubscribe.push(
      sources.invoices.activity.subscribe((rec) => {
        const p = rec.payload as { status?: string; previous_status?: string } | null;
        if (rec.type === 'committed' && p?.status && p.status !== p.previous_status && OUTCOMES.has(p.status)) outcomes.inc({ status: p.status });
      }),
    );

    new Gauge({
      name: 'chainpay_database_up',
      help: '1 when the last database probe succeeded.',
      registers: r,
      collect() {
        this.set(sources.databaseUp() ? 1 : 0);
      },
    });
    new Gauge({
      name: 'chainpay_webhook_queue_depth',
      help: 'Webhook events waiting for delivery.',
      registers: r,
      async collect() {
        const f = await self.figures();
        if (f) this.set(f.webhookEvents.get('pending') ?? 0);
      },
    });
    new Gauge({
      name: 'chainpay_webhook_events',
      help: 'Webhook events by delivery status.',
      labelNames: ['status'],
      registers: r,
      async collect() {
        const f = await self.figures();
        if (f) for (const status of WEBHOOK_STATUSES) this.set({ status }, f.webhookEvents.get(status) ?? 0);
      },
    });
    new Counter({
      name: 'chainpay_webhook_failed_attempts_total',
      help: 'Webhook delivery attempts that failed (non-2xx, timeout, refused).',
      registers: r,
      async collect() {
        const f = await self.figures();
        if (!f) return;
        this.reset();
        this.inc(f.webhookFailedAttempts);
      },
    });
    new Gauge({
      name: 'chainpay_withdrawals_in_review',
      help: 'Withdrawals held for an operator decision.',
      registers: r,
      async collect() {
        const f = await self.figures();
        if (f) this.set(f.withdrawalsInReview);
      },
    });
    new Gauge({
      name: 'chainpay_ledger_balance',
      help: 'Sum of ledger entries per account class (USDT; credits positive).',
      labelNames: ['account'],
      registers: r,
      async collect() {
        const f = await self.figures();
        if (!f) return;
        this.reset();
        for (const [account, total] of f.ledger) this.set({ account }, Number(total));
      },
    });
  }

  /** One database read shared by the series of a scrape; null when the database is down. */
  private figures(): Promise<DbFigures | null> {
    const now = Date.now();
    if (this.dbRead && now - this.dbRead.at < DB_CACHE_MS) return this.dbRead.figures;
    const figures = readDbFigures(this.sources.orm).catch((err: unknown) => {
      this.sources.logger.warn({ err }, 'metrics: database figures unavailable');
      return null;
    });
    this.dbRead = { at: now, figures };
    return figures;
  }

  async text(): Promise<string> {
    return this.registry.metrics();
  }

  close(): void {
    for (const off of this.unsubscribe.splice(0)) off();
  }
}
