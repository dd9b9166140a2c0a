import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { NetworkCode } from '../../domain/networks';
import type { KeyMaterial } from '../codec';
import type { CheckedAddresses, DerivationAnswer, DerivationEngine, DerivationJob, DerivationWorkerData } from './messages';

/** A range could not be derived on the derivation thread: the codec refused, or the thread died. */
export class DerivationThreadError extends Error {
  override readonly name = 'DerivationThreadError';
  constructor(
    message: string,
    readonly details: { readonly network: NetworkCode; readonly from: number; readonly count: number; readonly cause?: string },
  ) {
    super(message);
  }
}

interface Pending {
  readonly job: DerivationJob;
  readonly resolve: (derived: CheckedAddresses) => void;
  readonly reject: (err: DerivationThreadError) => void;
}

const WORKER_ENTRY = path.join(__dirname, 'worker.js');
/** How long close() waits for the running jobs (a batch of 200 addresses takes well under a second). */
const CLOSE_WAIT_MS = 10_000;

/**
 * Deposit addresses derived on a worker thread of their own, each by both of its codec's
 * implementations (the pool takes an address only where they agree). Deriving is elliptic-curve
 * work (docs/performance.md has the figures per network) that refills the address pools while
 * invoices are created: on the daemon's event loop it was ~15% of the CPU of each new invoice, the
 * one thread every request goes through, while the other core had room. The thread runs the same
 * codecs with the same key material (worker-main.ts), started on first use and again after it
 * dies; jobs are answered by id.
 */
export class DerivationThread {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;
  /** close() waiting for the running jobs to be answered. */
  private readonly onIdle: Array<() => void> = [];
  #engine: DerivationEngine | null = null;

  constructor(private readonly keys: KeyMaterial) {}

  /** What the thread's last answer said it derives with (null before the first answer). */
  get engine(): DerivationEngine | null {
    return this.#engine;
  }

  /**
   * Addresses from .. from+count-1 of `network` by its codec's two implementations: `addresses` as
   * deriveDepositAddress gives them, `check` as crossCheckDepositAddresses gives them (uncompared).
   */
  derive(network: NetworkCode, from: number, count: number): Promise<CheckedAddresses> {
    if (this.closed) return Promise.reject(new DerivationThreadError('the derivation thread is closed', { network, from, count }));
    const job: DerivationJob = { id: this.nextId++, network, from, count };
    return new Promise<CheckedAddresses>((resolve, reject) => {
      this.pending.set(job.id, { job, resolve, reject });
      try {
        const worker = this.started();
        worker.ref();
        worker.postMessage(job);
      } catch (err) {
        // A thread that cannot be created fails this job as a thread failure, and nothing stays pending.
        this.pending.delete(job.id);
        reject(new DerivationThreadError(`the derivation thread could not start: ${(err as Error).message}`, { network, from, count }));
      }
    });
  }

  /**
   * Stops the thread once the jobs it was given have been answered (at most CLOSE_WAIT_MS), so it
   * is never terminated mid-job: terminating it while it runs can abort the whole process (keccak's
   * N-API add-on, called by the TRON and EVM codecs, fails against the terminating environment with
   * "FATAL ERROR: napi_create_reference", SIGABRT), and a daemon stopping during a pool refill then
   * exits 134 instead of 0. New jobs are refused from the start of close; jobs still unanswered at
   * the deadline fail.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.answered(CLOSE_WAIT_MS);
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
    this.failAll('the derivation thread was closed');
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const workerData: DerivationWorkerData = { keys: this.keys };
    const worker = new Worker(WORKER_ENTRY, { workerData, name: 'address-derivation' });
    worker.on('message', (answer: DerivationAnswer) => this.settle(answer));
    // A thread that failed is dropped; the next job starts a new one.
    worker.on('error', (err) => {
      if (this.worker === worker) this.worker = null;
      this.failAll(`the derivation thread failed: ${err.message}`);
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      this.failAll(`the derivation thread exited (code ${code})`);
    });
    // Idle, it must not keep the process alive; derive() refs it while jobs run.
    worker.unref();
    this.worker = worker;
    return worker;
  }

  /** Resolves once no job is waiting for an answer, or after `timeoutMs`. */
  private answered(timeoutMs: number): Promise<void> {
    if (this.pending.size === 0 || !this.worker) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, timeoutMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.onIdle.push(done);
    });
  }

  private settle(answer: DerivationAnswer): void {
    const pending = this.pending.get(answer.id);
    if (!pending) return;
    this.pending.delete(answer.id);
    if (this.pending.size === 0) {
      this.worker?.unref();
      for (const notify of this.onIdle.splice(0)) notify();
    }
    const { network, from, count } = pending.job;
    if (!answer.ok) {
      pending.reject(new DerivationThreadError(`deriving ${network} addresses ${from}..${from + count - 1} failed`, { network, from, count, cause: `${answer.name}: ${answer.message}` }));
      return;
    }
    if (answer.addresses.length !== count || answer.check.length !== count) {
      pending.reject(new DerivationThreadError(`the derivation thread answered ${answer.addresses.length} and ${answer.check.length} addresses for ${count}`, { network, from, count }));
      return;
    }
    this.#engine = answer.engine;
    pending.resolve({ addresses: [...answer.addresses], check: [...answer.check] });
  }

  private failAll(message: string): void {
    for (const [id, { job, reject }] of this.pending) {
      this.pending.delete(id);
      reject(new DerivationThreadError(message, { network: job.network, from: job.from, count: job.count }));
    }
    for (const notify of this.onIdle.splice(0)) notify();
  }
}
