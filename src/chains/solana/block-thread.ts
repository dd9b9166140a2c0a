import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { SlotBlock } from './block-reader';
import { fromFailure, type BlockAnswer, type BlockFetchConfig, type BlockFetcher, type BlockJob } from './block-fetch';
import { JsonRpcTransportError } from './json-rpc';

const WORKER_ENTRY = path.join(__dirname, 'block-worker.js');

interface Pending {
  readonly resolve: (block: SlotBlock | null) => void;
  readonly reject: (error: Error) => void;
}

/**
 * getBlock on a worker thread of its own. A mainnet block is ~3 MB of JSON: reading it on the
 * daemon's event loop (the HTTP body, JSON.parse, the garbage it leaves) paused every API request
 * for tens of milliseconds per block, 2.5 times a second (docs/performance.md, SOLANA: the GET p99
 * went from ~8 ms to ~180 ms on the bench's stream). The thread fetches and reads each block
 * (block-worker-main.ts) and posts back only what the watch uses. Started on first use and again
 * after it fails (its jobs then fail as transport errors: the watch retries them); idle, it does not
 * keep the process alive.
 */
export class BlockThread implements BlockFetcher {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed = false;

  constructor(private readonly config: BlockFetchConfig) {}

  fetch(slot: number): Promise<SlotBlock | null> {
    if (this.closed) return Promise.reject(new JsonRpcTransportError('getBlock: the block thread is closed', { method: 'getBlock', status: null }));
    const job: BlockJob = { id: this.nextId++, slot };
    return new Promise<SlotBlock | null>((resolve, reject) => {
      this.pending.set(job.id, { resolve, reject });
      try {
        const worker = this.started();
        worker.ref();
        worker.postMessage(job);
      } catch (error) {
        this.pending.delete(job.id);
        reject(new JsonRpcTransportError(`getBlock: the block thread could not start: ${(error as Error).message}`, { method: 'getBlock', status: null }));
      }
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
    this.failAll('the block thread was closed');
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_ENTRY, { workerData: this.config, name: 'solana-blocks' });
    worker.on('message', (answer: BlockAnswer) => this.settle(answer));
    worker.on('error', (error) => {
      if (this.worker === worker) this.worker = null;
      this.failAll(`the block thread failed: ${error.message}`);
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = null;
      this.failAll(`the block thread exited (code ${code})`);
    });
    worker.unref();
    this.worker = worker;
    return worker;
  }

  private settle(answer: BlockAnswer): void {
    const pending = this.pending.get(answer.id);
    if (!pending) return;
    this.pending.delete(answer.id);
    if (this.pending.size === 0) this.worker?.unref();
    if (answer.ok) pending.resolve(answer.block);
    else pending.reject(fromFailure(answer.failure));
  }

  private failAll(message: string): void {
    for (const [id, { reject }] of this.pending) {
      this.pending.delete(id);
      reject(new JsonRpcTransportError(`getBlock: ${message}`, { method: 'getBlock', status: null }));
    }
  }
}
