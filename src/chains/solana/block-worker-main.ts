import { parentPort, workerData } from 'node:worker_threads';
import { fetchSlotBlock, toFailure, type BlockAnswer, type BlockFetchConfig, type BlockJob } from './block-fetch';

/**
 * The block thread's side (started by BlockThread through block-worker.js): getBlock over HTTP,
 * JSON.parse of the ~3 MB answer and readSlotBlock, here, so that the daemon's event loop (every
 * API request goes through it) only receives the few transactions of the mint. Jobs run
 * concurrently (the watch keeps SOLANA_BLOCK_CONCURRENCY in flight) and are answered by id.
 */
const config = workerData as BlockFetchConfig;

parentPort!.on('message', (job: BlockJob) => {
  fetchSlotBlock(config, job.slot)
    .then(
      (block): BlockAnswer => ({ id: job.id, ok: true, block }),
      (error: unknown): BlockAnswer => ({ id: job.id, ok: false, failure: toFailure(error) }),
    )
    .then((answer) => parentPort!.postMessage(answer));
});
