import pino from 'pino';

/** Where a batch goes: a synchronous sonic-boom destination in production. */
export interface BatchSink {
  write(batch: string): unknown;
}

/** Lines are written once this many characters have gathered (~4 KiB of JSON)... */
const BATCH_CHARS = 4096;
/** ...or at the latest this long after they were logged. */
const FLUSH_MS = 100;

/**
 * A pino destination that gathers log lines in an array and hands each batch, joined once, to a
 * synchronous sonic-boom destination, which writes it at once (its partial-write and EAGAIN
 * handling are kept). sonic-boom's own batching (`minLength`) appends every line to one growing
 * string and measures its byte length on each append, which flattens the whole batch each time:
 * ~2 KB of garbage per ~400-byte request log line, about a seventh of all the gateway allocated per
 * GET (sampled heap profile, 2026-11-25). Joining an array copies each line once.
 *
 * Synchronous on purpose: with asynchronous writes, a batch still in the thread pool when the
 * process exits lands after the lines the exit flush writes (logger.test.ts caught it).
 */
export class BatchedDestination {
  #lines: string[] = [];
  #chars = 0;

  constructor(
    private readonly sink: BatchSink,
    private readonly batchChars = BATCH_CHARS,
  ) {}

  write(line: string): void {
    this.#lines.push(line);
    this.#chars += line.length;
    if (this.#chars >= this.batchChars) this.flushSync();
  }

  /**
   * Writes every gathered line now (the periodic flush and the exit flush call this). A batch whose
   * write throws (stdout closed) is dropped, not kept for the next call: no line is written twice.
   */
  flushSync(): void {
    if (this.#lines.length === 0) return;
    const batch = this.#lines.length === 1 ? this.#lines[0]! : this.#lines.join('');
    this.#lines = [];
    this.#chars = 0;
    this.sink.write(batch);
  }

  /** pino's `logger.flush(cb)`. */
  flush(cb?: (err?: Error) => void): void {
    try {
      this.flushSync();
    } catch (err) {
      return cb?.(err as Error);
    }
    cb?.();
  }
}

let stdout: BatchedDestination | undefined;

/**
 * The gateway's one stdout log destination per process, shared by every gateway logger made in it.
 * (The daemon's logger keeps sonic-boom's own batching: it logs per status change, not per request,
 * and the gateway imports nothing of the daemon's; both write whole lines, so under `npm start`
 * their batches never split a line.) pino flushes at exit only destinations it made itself, so this
 * one is flushed on 'exit' (which also follows an uncaught exception); only a SIGKILL loses lines,
 * those of its last FLUSH_MS.
 */
export function batchedStdout(): BatchedDestination {
  if (stdout) return stdout;
  const destination = new BatchedDestination(pino.destination({ dest: 1, sync: true, minLength: 0 }));
  setInterval(() => destination.flushSync(), FLUSH_MS).unref();
  process.on('exit', () => {
    try {
      destination.flushSync();
    } catch {
      // stdout closed already: nothing can be written.
    }
  });
  stdout = destination;
  return destination;
}
