import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../../domain/clock';
import { NotFoundError } from '../../domain/errors';
import type { NetworkCode } from '../../domain/networks';
import type { InvoiceActors } from '../invoices/invoice-actors';
import type { WithdrawalActors } from '../withdrawals/withdrawal-actors';
import type { NetworkWatcher } from '../watchers/network-watcher';
import type { ActorActivity, ActorActivityRecord, ActorKind } from './activity';
import { invoiceTimers, withdrawalTimers } from './timers';

export interface ActorSummaryView {
  readonly kind: ActorKind;
  readonly id: string;
  readonly status: string;
  readonly network: string | null;
  readonly updatedAt: Date | null;
}

export interface ActorDetailView {
  readonly summary: ActorSummaryView;
  readonly stateValue: unknown;
  readonly context: unknown;
  readonly pendingTimers: string[];
  readonly lastEvents: ActorActivityRecord[];
  readonly persistedAt: Date | null;
}

export interface ActorDirectoryDeps {
  readonly orm: MikroORM;
  readonly clock: Clock;
  readonly invoices: InvoiceActors;
  readonly withdrawals: WithdrawalActors;
  readonly watchers: ReadonlyMap<NetworkCode, NetworkWatcher>;
  readonly watcherActivity: ActorActivity;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
type Row = { uuid: string; status: string; network: string | null; updated_at: Date; actor_snapshot?: unknown };

/**
 * Read-only view of the live actors for operators: list by kind and status, show one (state value,
 * context, pending timers, last events, when last persisted). The rows say when an actor was last
 * persisted; the hosts say what it holds now.
 */
export class ActorDirectory {
  constructor(private readonly deps: ActorDirectoryDeps) {}

  activities(): ActorActivity[] {
    return [this.deps.invoices.activity, this.deps.withdrawals.activity, this.deps.watcherActivity];
  }

  async list(filter: { kind?: ActorKind; status?: string; limit: number }): Promise<ActorSummaryView[]> {
    const out: ActorSummaryView[] = [];
    if (!filter.kind || filter.kind === 'invoice') out.push(...(await this.listRows('invoice', filter.status, filter.limit)));
    if (!filter.kind || filter.kind === 'withdrawal') out.push(...(await this.listRows('withdrawal', filter.status, filter.limit)));
    if (!filter.kind || filter.kind === 'watcher') out.push(...this.listWatchers());
    return out
      .filter((a) => !filter.status || a.status === filter.status)
      .sort((a, b) => (b.updatedAt?.getTime() ?? 0) - (a.updatedAt?.getTime() ?? 0))
      .slice(0, filter.limit);
  }

  async show(rawId: string): Promise<ActorDetailView> {
    const id = rawId.trim();
    const watcher = this.deps.watchers.get(id.toUpperCase() as NetworkCode);
    if (watcher) return this.showWatcher(watcher);
    if (!UUID.test(id)) throw new NotFoundError('actor', id);
    const uuid = id.toLowerCase();
    const now = this.deps.clock.now();
    const invoice = await this.row('invoice', uuid);
    if (invoice) {
      const live = this.deps.invoices.snapshot(uuid);
      const ctx = live?.context ?? (invoice.actor_snapshot as { context?: unknown } | null)?.context;
      const value = live?.value ?? (invoice.open ? (invoice.actor_snapshot as { value?: unknown } | null)?.value : 'closed');
      return {
        summary: { kind: 'invoice', id: uuid, status: live?.context.status ?? invoice.status, network: this.deps.invoices.networkOf(uuid) ?? invoice.network, updatedAt: invoice.updated_at },
        stateValue: value ?? null,
        context: ctx ?? null,
        pendingTimers: live ? invoiceTimers(live.context, live.value, now) : [],
        lastEvents: this.deps.invoices.activity.last(uuid),
        persistedAt: invoice.updated_at,
      };
    }
    const withdrawal = await this.row('withdrawal', uuid);
    if (withdrawal) {
      const live = this.deps.withdrawals.snapshot(uuid);
      const snapshot = withdrawal.actor_snapshot as { value?: unknown; context?: unknown } | null;
      return {
        summary: { kind: 'withdrawal', id: uuid, status: live?.context.status ?? withdrawal.status, network: withdrawal.network, updatedAt: withdrawal.updated_at },
        stateValue: live?.value ?? snapshot?.value ?? null,
        context: live?.context ?? snapshot?.context ?? null,
        pendingTimers: live ? withdrawalTimers(live.context, live.value) : [],
        lastEvents: this.deps.withdrawals.activity.last(uuid),
        persistedAt: withdrawal.updated_at,
      };
    }
    throw new NotFoundError('actor', id);
  }

  private async showWatcher(watcher: NetworkWatcher): Promise<ActorDetailView> {
    const status = await watcher.refresh();
    const rows = await this.deps.orm.em.fork().execute<{ updated_at: Date }[]>('select updated_at from watcher_cursors where network = ?', [watcher.network]);
    return {
      summary: { kind: 'watcher', id: watcher.network, status: status.state, network: watcher.network, updatedAt: status.lastBlockAt },
      stateValue: status.state,
      context: { ...status, trackedTransfers: watcher.trackedTransfers() },
      pendingTimers: [],
      lastEvents: this.deps.watcherActivity.last(watcher.network),
      persistedAt: rows[0]?.updated_at ? new Date(rows[0].updated_at) : null,
    };
  }

  private listWatchers(): ActorSummaryView[] {
    return [...this.deps.watchers.values()].map((w) => {
      const s = w.status();
      return { kind: 'watcher', id: w.network, status: s.state, network: w.network, updatedAt: s.lastBlockAt };
    });
  }

  /** Open rows whose actor is live here, newest change first; the status is the live one. */
  private async listRows(kind: 'invoice' | 'withdrawal', status: string | undefined, limit: number): Promise<ActorSummaryView[]> {
    const host = kind === 'invoice' ? this.deps.invoices : this.deps.withdrawals;
    if (host.size() === 0) return [];
    const table = kind === 'invoice' ? 'invoices' : 'withdrawals';
    const sql = `select uuid, status, network, updated_at from ${table} where open${status ? ' and status = ?' : ''} order by updated_at desc limit ?`;
    const rows = await this.deps.orm.em.fork().execute<Row[]>(sql, status ? [status, limit] : [limit]);
    return rows.filter((r) => host.has(r.uuid)).map((r) => ({ kind, id: r.uuid, status: host.context(r.uuid)?.status ?? r.status, network: r.network, updatedAt: new Date(r.updated_at) }));
  }

  private async row(kind: 'invoice' | 'withdrawal', uuid: string): Promise<(Row & { open: boolean }) | null> {
    const table = kind === 'invoice' ? 'invoices' : 'withdrawals';
    const rows = await this.deps.orm.em.fork().execute<(Row & { open: boolean })[]>(`select uuid, status, network, updated_at, open, actor_snapshot from ${table} where uuid = ?`, [uuid]);
    const r = rows[0];
    if (!r) return null;
    const snapshot = typeof r.actor_snapshot === 'string' ? JSON.parse(r.actor_snapshot) : r.actor_snapshot;
    return { ...r, actor_snapshot: snapshot, updated_at: new Date(r.updated_at) };
  }
}
