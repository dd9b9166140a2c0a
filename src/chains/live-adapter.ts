import type { Clock } from '../domain/clock';
import type { NetworkCode } from '../domain/networks';
import type { AddressCodec, KeyMaterial } from './codec';
import type { ChainAdapter, RpcObserver } from './types';

/** What the registry hands a live family's factory: the network, its codec and keys, the daemon's clock, the family's own options. */
export interface LiveAdapterInput {
  readonly network: NetworkCode;
  readonly codec: AddressCodec;
  readonly keys: KeyMaterial;
  readonly clock: Clock;
  readonly options: unknown;
  readonly onRpc?: RpcObserver;
}

export type LiveAdapterFactory = (input: LiveAdapterInput) => ChainAdapter;
