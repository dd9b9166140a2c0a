import { parentPort, workerData } from 'node:worker_threads';
import type { AddressCodec } from '../codec';
import { createAddressCodec } from '../codecs';
import { widenBaseTable } from '../keys/bip32';
import { secp256k1Addon } from '../keys/secp256k1-addon';
import type { NetworkCode } from '../../domain/networks';
import type { CheckedAddresses, DerivationAnswer, DerivationJob, DerivationWorkerData } from './messages';

/**
 * The derivation thread's side (started by DerivationThread through worker.js): the same codecs
 * as the daemon's adapters (createAddressCodec with the same key material), so an address derived
 * here is the one the main thread would have derived. Each range is derived by both of the codec's
 * implementations (deriveDepositAddresses: @scure/bip32 and noble; crossCheckDepositAddresses: the
 * secp256k1/keccak add-ons, or SLIP-0010 by two libraries on SOLANA); refillPool compares them.
 */
const { keys } = workerData as DerivationWorkerData;
const codecs = new Map<NetworkCode, AddressCodec>();
/**
 * secp256k1 addresses to derive before the wider base-point table pays for itself (widenBaseTable:
 * ~0.3 s once, ~70 µs saved per address): pools that stay small, as in tests, never build it.
 */
const WIDE_TABLE_AFTER = 5_000;
let secp256k1Derived = 0;

async function derive(job: DerivationJob): Promise<CheckedAddresses> {
  let codec = codecs.get(job.network);
  if (!codec) {
    codec = createAddressCodec(job.network, keys);
    codecs.set(job.network, codec);
  }
  // The secp256k1 families (range derivation on the BIP-32 chain node) profit from the wide table.
  if (codec.deriveDepositAddresses) {
    if (secp256k1Derived < WIDE_TABLE_AFTER && secp256k1Derived + job.count >= WIDE_TABLE_AFTER) widenBaseTable();
    secp256k1Derived += job.count;
  }
  const addresses = codec.deriveDepositAddresses ? codec.deriveDepositAddresses(job.from, job.count) : Array.from({ length: job.count }, (_, k) => codec.deriveDepositAddress(job.from + k));
  return { addresses, check: await codec.crossCheckDepositAddresses(job.from, job.count) };
}

parentPort!.on('message', (job: DerivationJob) => {
  derive(job)
    .then(
      (derived): DerivationAnswer => ({ id: job.id, ok: true, ...derived, engine: secp256k1Addon().engine }),
      (err: unknown): DerivationAnswer => {
        const e = err instanceof Error ? err : new Error(String(err));
        return { id: job.id, ok: false, name: e.name, message: e.message };
      },
    )
    .then((answer) => parentPort!.postMessage(answer));
});
