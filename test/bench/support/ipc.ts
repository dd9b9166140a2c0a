import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';

/**
 * Bench processes talk over the Node IPC channel: the parent calls a named command, the child
 * answers once. Each load generator, server and baseline runs in its own process so none of them
 * shares an event loop with what it measures.
 */
interface Request {
  readonly id: number;
  readonly cmd: string;
  readonly args: unknown;
}
type Reply = { readonly id: number; readonly ok: true; readonly result: unknown } | { readonly id: number; readonly ok: false; readonly error: string };

export type Handlers = Record<string, (args: any) => Promise<unknown>>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Child side: answer the parent's calls until it disconnects; `cleanup` runs before exiting. */
export function serveIpc(handlers: Handlers, cleanup: () => Promise<void> = async () => undefined): void {
  if (!process.send) throw new Error('a bench child must be started with an IPC channel');
  process.on('message', (msg: Request) => {
    const handler = handlers[msg.cmd];
    const answer = (reply: Reply) => process.send?.(reply);
    if (!handler) return answer({ id: msg.id, ok: false, error: `unknown command ${msg.cmd}` });
    handler(msg.args).then(
      (result) => answer({ id: msg.id, ok: true, result: result ?? null }),
      (err: unknown) => answer({ id: msg.id, ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
    );
  });
  let exiting = false;
  const exit = () => {
    if (exiting) return;
    exiting = true;
    // Bounded: a child that cannot clean up still goes.
    const timer = setTimeout(() => process.exit(1), 15_000);
    cleanup().finally(() => {
      clearTimeout(timer);
      process.exit(0);
    });
  };
  process.on('disconnect', exit);
  process.on('SIGTERM', exit);
  process.on('SIGINT', exit);
}

export interface Child {
  readonly process: ChildProcess;
  call<T>(cmd: string, args?: unknown): Promise<T>;
  /** Ends the child (SIGTERM, then SIGKILL after 5 s) and waits for its exit. */
  stop(): Promise<void>;
}

export interface ChildOptions {
  readonly args?: readonly string[];
  readonly env?: NodeJS.ProcessEnv;
  /** Extra Node flags, e.g. --max-old-space-size=1024, --expose-gc, --cpu-prof. */
  readonly nodeFlags?: readonly string[];
  /** stdout/stderr of the child go here (appended); default: inherited stderr, stdout ignored. */
  readonly logFile?: string;
}

/** Starts `file` (TypeScript, through tsx) with an IPC channel. */
export function startChild(file: string, options: ChildOptions = {}): Child {
  const out = options.logFile ? fs.openSync(options.logFile, 'a') : 'ignore';
  const err = options.logFile ? out : 'inherit';
  const child = fork(file, [...(options.args ?? [])], {
    execArgv: ['--import', 'tsx', ...(options.nodeFlags ?? [])],
    env: { ...process.env, ...options.env },
    stdio: ['ignore', out, err, 'ipc'],
  });
  let next = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('message', (reply: Reply) => {
    const p = pending.get(reply.id);
    if (!p) return;
    pending.delete(reply.id);
    if (reply.ok) p.resolve(reply.result);
    else p.reject(new Error(`${file}: ${reply.error}`));
  });
  child.once('exit', (code, signal) => {
    for (const p of pending.values()) p.reject(new Error(`${file} exited (${code ?? signal})`));
    pending.clear();
  });
  return {
    process: child,
    call: <T>(cmd: string, args?: unknown) =>
      new Promise<T>((resolve, reject) => {
        const id = next++;
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id, cmd, args } satisfies Request);
      }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
