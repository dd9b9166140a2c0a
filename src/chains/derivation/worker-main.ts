import { parentPort, workerData } from 'node:worker_threads';
import type { AddressCodec } from '../codec';
import { createAddressCodec } from '../codecs';
import type { NetworkCode } from '../../domain/networks';
import type { DerivationAnswer, DerivationJob, DerivationWorkerData } from './messages';

/**
 * The derivation thread's side (started by DerivationThread through worker.js): the same codecs
 * as the daemon's adapters (createAddressCodec with the same key material), so an address derived
 * here is the one the main thread would have derived.
 */
const { keys } = workerData as DerivationWorkerData;
const codecs = new Map<NetworkCode, AddressCodec>();

function derive(job: DerivationJob): string[] {
  let codec = codecs.get(job.network);
  if (!codec) {
    codec = createAddressCodec(job.network, keys);
    codecs.set(job.network, codec);
  }
  if (codec.deriveDepositAddresses) return codec.deriveDepositAddresses(job.from, job.count);
  return Array.from({ length: job.count }, (_, k) => codec.deriveDepositAddress(job.from + k));
}

parentPort!.on('message', (job: DerivationJob) => {
  let answer: DerivationAnswer;
  try {
    answer = { id: job.id, ok: true, addresses: derive(job) };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    answer = { id: job.id, ok: false, name: e.name, message: e.message };
  }
  parentPort!.postMessage(answer);
});
