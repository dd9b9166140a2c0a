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
  /** Structured log lines of the family (pino-compatible); absent in tests that do not read them. */
  readonly logger?: LiveLogger;
}

export interface LiveLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export type LiveAdapterFactory = (input: LiveAdapterInput) => ChainAdapter;
