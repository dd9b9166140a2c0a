import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { freshDistEntry } from './dist';
import { TEST_POOL } from './test-pool';

export const ROOT = path.resolve(__dirname, '../..');

export interface Spawned {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** Resolves with the first log line matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited(): Promise<number | null>;
}

/**
 * Runs a TypeScript entry point (src/main.ts, src/start-all.ts, ...) as a real process: its compiled
 * file when dist/ is fresh (freshDistEntry), else the source through tsx.
 */
export function spawnTs(entry: string, env: Record<string, string | undefined>): Spawned {
  const compiled = freshDistEntry(entry);
  // --import tsx runs the entry in THIS process (the tsx CLI would fork, and a SIGKILL would hit only the wrapper).
  const args = compiled ? ['--enable-source-maps', compiled] : ['--import', 'tsx', path.join(ROOT, entry)];
  return track(
    spawn(process.execPath, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', ...TEST_POOL, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/**
 * Runs `npm run <script>` (e.g. `start`: node on dist/, as a user runs it) as a real process.
 * detached: in a process group of its own, as a terminal runs a command (a Ctrl-C signals the group).
 */
export function spawnNpm(script: string, env: Record<string, string | undefined>, options: { detached?: boolean } = {}): Spawned {
  return track(
    spawn('npm', ['run', script], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.detached ?? false,
    }),
  );
}

/** Collects a child's stdout and stderr and watches them for log lines. */
function track(child: ChildProcess): Spawned {
  let out = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    out += chunk.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => out,
    exited: () => exit,
    waitFor: (pattern, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const check = (): void => {
          const line = out.split('\n').find((l) => pattern.test(l));
          if (line) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(line);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern} in output:\n${out.slice(-3000)}`));
        }, timeoutMs);
        listeners.add(check);
        void exit.then((code) => {
          if (listeners.has(check)) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(new Error(`process exited (${code}) before ${pattern}:\n${out.slice(-3000)}`));
          }
        });
        check();
      }),
  };
}

/** The gRPC port from the daemon's "gRPC server listening" log line. */
export function grpcPortFrom(line: string): number {
  return (JSON.parse(line) as { port: number }).port;
}
