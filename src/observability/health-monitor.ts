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
}

const STATE_CHANGES = new Set(['halted', 'pause', 'resume', 'rescan']);

/**
 * Keeps the daemon's gRPC health in step with what it depends on: the overall service ('')
 * is SERVING only while the database answers `select 1`; each watcher has its own service name,
 * SERVING while it runs (paused, halted and stopped watchers are NOT_SERVING). One network's
 * watcher does not take the whole daemon out: the others keep serving.
 */
export class HealthMonitor {
  private timer: NodeJS.Timeout | null = null;
  private dbUp = false;
  private checking: Promise<void> | null = null;
  private stopped = false;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: HealthMonitorDeps) {}

  databaseUp(): boolean {
    return this.dbUp;
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
      if (up) this.deps.logger.info('database reachable again: serving');
      else this.deps.logger.error({ alert: 'database_down' }, 'database probe failed: health NOT_SERVING');
    }
    this.dbUp = up;
    if (this.stopped) return;
    this.deps.health.setStatus('', up ? 'SERVING' : 'NOT_SERVING');
    for (const [network, w] of this.deps.watchers) {
      const state = w.status().state;
      this.deps.health.setStatus(watcherServiceName(network), up && (state === 'running' || state === 'starting') ? 'SERVING' : 'NOT_SERVING');
    }
  }

  private async probeDatabase(): Promise<boolean> {
    const timeoutMs = this.deps.probeTimeoutMs ?? 1_500;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    const probe = this.deps.orm.em.fork().execute('select 1').then(() => true, () => false);
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
