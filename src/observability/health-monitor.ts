import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { HealthImplementation } from 'grpc-health-check';
import type { NetworkCode } from '../domain/networks';
import type { NetworkWatcher } from '../actors/watchers/network-watcher';
import type { ActorActivity } from '../actors/introspection/activity';

/** gRPC health service name of one network's watcher, e.g. `chainpay.watcher.TRC20`. */
export function watcherServiceName(network: NetworkCode): string {
  return `chainpay.watcher.${network}`;
}

export interface HealthMonitorDeps {
  readonly orm: MikroORM;
  readonly logger: Logger;
  readonly health: Pick<HealthImplementation, 'setStatus'>;
  readonly watchers: ReadonlyMap<NetworkCode, NetworkWatcher>;
  /** Probe period; default 2 s (a `select 1` is cheap). */
  readonly intervalMs?: number;
  /** A probe slower than this counts as down; default 1.5 s. */
  readonly probeTimeoutMs?: number;
  /** Re-check at once when a watcher halts, pauses or resumes. */
  readonly watcherActivity?: ActorActivity;
  /** How long a running watcher may be in trouble (RPC unhealthy or lagging) and still serve; default 60 s. */
  readonly watcherUnhealthyAfterMs?: number;
  /** A running watcher whose `lag_seconds` is above this is in trouble; default 300 s. */
  readonly watcherMaxLagSeconds?: number;
  /** Wall time in ms (tests inject it); default Date.now. */
  readonly now?: () => number;
}

export const DEFAULT_WATCHER_UNHEALTHY_AFTER_MS = 60_000;
export const DEFAULT_WATCHER_MAX_LAG_SECONDS = 300;

const STATE_CHANGES = new Set(['halted', 'pause', 'resume', 'rescan']);

/**
 * Keeps the daemon's gRPC health in step with what it depends on: the overall service ('')
 * is SERVING only while the database answers `select 1`; each watcher has its own service name,
 * SERVING while it runs (paused, halted and stopped watchers are NOT_SERVING) unless it has been
 * in trouble, its RPC unhealthy or its lag_seconds above `watcherMaxLagSeconds`, for longer than
 * `watcherUnhealthyAfterMs` (one failed poll is retried and must not flap the health). One network's
 * watcher does not take the whole daemon out: the others keep serving.
 */
export class HealthMonitor {
  private timer: NodeJS.Timeout | null = null;
  /** null until the first probe: the first answer is the start, not a change (nothing "again"). */
  private dbUp: boolean | null = null;
  private checking: Promise<void> | null = null;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;
  /** Since when (ms) each running watcher has been in trouble; absent while it is fine. */
  private readonly troubleSince = new Map<NetworkCode, number>();
  /** Watchers currently reported NOT_SERVING because of trouble (logged once per episode). */
  private readonly troubled = new Set<NetworkCode>();

  constructor(private readonly deps: HealthMonitorDeps) {}

  databaseUp(): boolean {
    return this.dbUp === true;
  }

  start(): Promise<void> {
    this.timer = setInterval(() => void this.check(), this.deps.intervalMs ?? 2_000);
    this.timer.unref();
    this.unsubscribe = this.deps.watcherActivity?.subscribe((r) => {
      if (STATE_CHANGES.has(r.type)) setImmediate(() => void this.check());
    });
    return this.check();
  }

  /** Probe now (also after an operator changed a watcher). Concurrent calls share one probe. */
  check(): Promise<void> {
    return (this.checking ??= this.probe().finally(() => (this.checking = null)));
  }

  private async probe(): Promise<void> {
    const up = await this.probeDatabase();
    if (up !== this.dbUp) {
      if (!up) this.deps.logger.error({ alert: 'database_down' }, 'database probe failed: health NOT_SERVING');
      else if (this.dbUp === false) this.deps.logger.info('database reachable again: serving');
    }
    this.dbUp = up;
    if (this.stopped) return;
    this.deps.health.setStatus('', up ? 'SERVING' : 'NOT_SERVING');
    for (const [network, w] of this.deps.watchers) {
      const s = w.status();
      const running = s.state === 'running' || s.state === 'starting';
      const troubled = this.troubledTooLong(network, running, s); // always: a pause ends an episode
      const serving = up && running && !troubled;
      this.deps.health.setStatus(watcherServiceName(network), serving ? 'SERVING' : 'NOT_SERVING');
    }
  }

  /** True once a running watcher's RPC was unhealthy, or it lagged, for longer than allowed. */
  private troubledTooLong(network: NetworkCode, running: boolean, s: { rpcHealthy: boolean; lagSeconds: number; lastError: string | null }): boolean {
    const now = (this.deps.now ?? Date.now)();
    const maxLag = this.deps.watcherMaxLagSeconds ?? DEFAULT_WATCHER_MAX_LAG_SECONDS;
    const inTrouble = running && (!s.rpcHealthy || s.lagSeconds > maxLag);
    if (!inTrouble) {
      this.troubleSince.delete(network);
      if (this.troubled.delete(network)) this.deps.logger.info({ network }, 'watcher healthy again: serving');
      return false;
    }
    const since = this.troubleSince.get(network) ?? now;
    this.troubleSince.set(network, since);
    const afterMs = this.deps.watcherUnhealthyAfterMs ?? DEFAULT_WATCHER_UNHEALTHY_AFTER_MS;
    if (now - since < afterMs) return false;
    if (!this.troubled.has(network)) {
      this.troubled.add(network);
      this.deps.logger.error(
        { network, alert: 'watcher_unhealthy', rpcHealthy: s.rpcHealthy, lagSeconds: s.lagSeconds, lastError: s.lastError, forMs: now - since },
        'watcher RPC unhealthy or lagging too long: health NOT_SERVING',
      );
    }
    return true;
  }

  private async probeDatabase(): Promise<boolean> {
    const timeoutMs = this.deps.probeTimeoutMs ?? 1_500;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const probe = this.deps.orm.em
      .fork()
      .execute('select 1')
      .then(
        () => true,
        () => false,
      );
    try {
      return await Promise.race([probe, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** No more probes; the daemon sets NOT_SERVING itself while it shuts down. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.checking;
  }
}
