import type { KeyMaterial } from '../codec';
import type { NetworkCode } from '../../domain/networks';

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

/** What the thread's secp256k1 families derive with: libsecp256k1 and a native keccak where their add-ons load, else JavaScript. */
export type DerivationEngine = 'libsecp256k1' | 'javascript';

/** The answer to a job: the addresses in order (each as the codec's deriveDepositAddress gives it), or why not. */
export type DerivationAnswer =
  | { readonly id: number; readonly ok: true; readonly addresses: readonly string[]; readonly engine: DerivationEngine }
  | { readonly id: number; readonly ok: false; readonly name: string; readonly message: string };
