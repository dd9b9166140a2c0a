import type { Spawned } from '../../support/processes';
import { spawnTs } from '../../support/processes';

/**
 * What docker-compose's `restart: unless-stopped` (or systemd's Restart=always) does for a daemon:
 * whenever the process exits (lost its engine lock, could not reach PostgreSQL at start), start it
 * again after a short pause, until stopped.
 */
export interface Supervisor {
  readonly starts: number;
  readonly current: Spawned;
  /** Resolves once the current process has logged `pattern` (e.g. gRPC listening). */
  ready(pattern?: RegExp, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

export function supervise(entry: string, env: Record<string, string>, running: Spawned[], pauseMs = 300): Supervisor {
  let stopped = false;
  let starts = 0;
  let current: Spawned;
  const launch = (): void => {
    starts++;
    current = spawnTs(entry, env);
    running.push(current);
    const me = current;
    void me.exited().then(() => {
      if (!stopped) setTimeout(() => !stopped && launch(), pauseMs);
    });
  };
  launch();
  return {
    get starts() {
      return starts;
    },
    get current() {
      return current;
    },
    async ready(pattern = /gRPC server listening/, timeoutMs = 120_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        try {
          await current.waitFor(pattern, Math.max(1000, deadline - Date.now()));
          return;
        } catch (error) {
          // The process exited before it was ready: the next one is on its way.
          if (Date.now() > deadline) throw error;
          await new Promise((r) => setTimeout(r, pauseMs + 50));
        }
      }
    },
    async stop() {
      stopped = true;
      if (current.child.exitCode === null) current.child.kill('SIGTERM');
      await current.exited();
    },
  };
}
