import { Rpc } from './client';
import type { CommandContext } from './command';
import { resolve } from './dispatch';
import { CliError, UsageError } from './errors';
import type { CliIO } from './io';
import { Output } from './output';
import { daemonTarget } from './target';
import { usageText } from './usage';

export type { CliIO } from './io';

/**
 * Runs one `chainpay` command line (argv without node and script) and returns the exit code:
 * 0 ok, 1 error (daemon or local), 2 usage. Never throws and never calls process.exit, so tests
 * run it in-process against a real gRPC server.
 */
export async function run(argv: readonly string[], io: CliIO): Promise<number> {
  const out = new Output(io.stdout, io.stderr, argv.includes('--json'));
  let rpc: Rpc | undefined;
  try {
    const resolved = resolve(argv);
    if (resolved.kind === 'help') {
      io.stdout.write(`${usageText(resolved.scope)}\n`);
      return 0;
    }
    const ctx: CommandContext = {
      args: resolved.args,
      out,
      io,
      // Created on first use so `sign` and usage errors never read the token file or dial.
      get rpc() {
        return (rpc ??= new Rpc(daemonTarget(io.env)));
      },
    };
    return (await resolved.spec.run(ctx)) ?? 0;
  } catch (e) {
    if (e instanceof UsageError) {
      out.usage(e.message, usageText(e.command));
      return 2;
    }
    out.error(e instanceof CliError ? e : new CliError('internal', e instanceof Error ? e.message : String(e)));
    return 1;
  } finally {
    rpc?.close();
  }
}

/** The real process: argv, stdio, Ctrl-C ends a watch (exit 130). */
export function runMain(): void {
  const interrupted = new AbortController();
  const onSignal = (): void => interrupted.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  // `chainpay ... | head`: a closed pipe is not an error worth a stack trace.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw e;
  });
  const io: CliIO = {
    env: process.env,
    stdout: process.stdout,
    stderr: process.stderr,
    // Lazy: touching process.stdin opens a handle, and only `sign` reads it.
    get stdin() {
      return process.stdin;
    },
    signal: interrupted.signal,
  };
  void run(process.argv.slice(2), io).then((code) => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    process.exitCode = interrupted.signal.aborted && code === 0 ? 130 : code;
  });
}

if (require.main === module) runMain();
