import type { KeyMaterial } from '../codec';
import type { NetworkCode } from '../../domain/networks';
import type { AddonEngine } from '../keys/secp256k1-addon';

/** What the derivation thread is started with (worker_threads workerData). */
export interface DerivationWorkerData {
  readonly keys: KeyMaterial;
}

/** One range of deposit addresses to derive: from .. from+count-1 of `network`'s deposit chain. */
export interface DerivationJob {
  readonly id: number;
  readonly network: NetworkCode;
  readonly from: number;
  readonly count: number;
}

/** What the thread's secp256k1 check runs on: libsecp256k1 where the add-on loads, else its JavaScript fallback. */
export type DerivationEngine = AddonEngine;

/**
 * A range derived twice, by the codec's two independent implementations: `addresses` as
 * deriveDepositAddress(i) gives them, `check` as crossCheckDepositAddresses gives them. Whoever
 * stores them compares the two (refillPool); the thread only derives.
 */
export interface CheckedAddresses {
  readonly addresses: readonly string[];
  readonly check: readonly string[];
}

/** The answer to a job: both derivations in order, or why not. */
export type DerivationAnswer =
  | ({ readonly id: number; readonly ok: true; readonly engine: DerivationEngine } & CheckedAddresses)
  | { readonly id: number; readonly ok: false; readonly name: string; readonly message: string };
