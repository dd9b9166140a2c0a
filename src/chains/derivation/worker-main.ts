import { parentPort, workerData } from 'node:worker_threads';
import type { AddressCodec } from '../codec';
import { createAddressCodec } from '../codecs';
import { loadNativeSecp256k1 } from '../keys/native-secp256k1';
import type { NetworkCode } from '../../domain/networks';
import type { DerivationAnswer, DerivationJob, DerivationWorkerData } from './messages';

/**
 * The derivation thread's side (started by DerivationThread through worker.js): the same codecs
 * as the daemon's adapters (createAddressCodec with the same key material), so an address derived
 * here is the one the main thread would have derived; its secp256k1 families (EVM, TRON) derive
 * with libsecp256k1 where the add-on loads (keys/native-secp256k1.ts), the daemon thread in
 * JavaScript, and refillPool compares the two on the last address of every chunk.
 */
const { keys } = workerData as DerivationWorkerData;
const codecs = new Map<NetworkCode, AddressCodec>();
/** libsecp256k1 and a native keccak where their add-ons load (~2.5x faster); the daemon thread re-derives one address per chunk in JavaScript. */
const native = loadNativeSecp256k1();

function derive(job: DerivationJob): string[] {
  let codec = codecs.get(job.network);
  if (!codec) {
    codec = createAddressCodec(job.network, keys, native);
    codecs.set(job.network, codec);
  }
  if (codec.deriveDepositAddresses) return codec.deriveDepositAddresses(job.from, job.count);
  return Array.from({ length: job.count }, (_, k) => codec.deriveDepositAddress(job.from + k));
}

parentPort!.on('message', (job: DerivationJob) => {
  let answer: DerivationAnswer;
  try {
    answer = { id: job.id, ok: true, addresses: derive(job), engine: native ? 'libsecp256k1' : 'javascript' };
  } catch (err) {
    const e = err instanceof Error ? err : new Error(String(err));
    answer = { id: job.id, ok: false, name: e.name, message: e.message };
  }
  parentPort!.postMessage(answer);
});
