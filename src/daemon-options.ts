import type { Logger } from 'pino';
import type { DaemonClock } from './actors/daemon-clock';
import type { NetworkCode } from './domain/networks';
import type { DerivedTwice } from './store/repos/address-pool';
import type { Resolver } from './webhooks/address-guard';
import type { LoginGuardOptions } from './dashboard/login-guard';
import type { SessionTimeouts } from './dashboard/sessions';

/** Both derivations of a range of deposit addresses (DerivationThread#derive). */
export type DeriveRange = (network: NetworkCode, from: number, count: number) => Promise<DerivedTwice>;

export interface DaemonOptions {
  logger?: Logger;
  /** Tests only: trusted CAs / resolver for webhook delivery (production: NODE_EXTRA_CA_CERTS, system DNS). */
  webhooks?: { ca?: string | Buffer; resolver?: Resolver; timeoutMs?: number; pollMs?: number };
  /** The engine lock's connection broke: another daemon may take over, so this one must stop. Default: stop(). */
  onEngineLockLost?: (err: Error) => void;
  /**
   * Tests only: a clock the test drives (e.g. past an invoice's expiry on a hardhat-backed live
   * network). Default: real time on live (nothing can move it), the devnet clock on devnet. The
   * entry points (main.ts, start-all.ts) never pass one.
   */
  clock?: DaemonClock;
  /**
   * The metrics port when METRICS_PORT is unset (`npm start`: 9464, on GRPC_HOST). A default port
   * already taken is a warning and no metrics server; a METRICS_PORT that was set and is taken stops the start.
   */
  defaultMetricsPort?: number;
  /** Tests only: wraps the derivation thread's ranges (e.g. a wrong derivation, to see a pool refill stop). */
  wrapDerivation?: (derive: DeriveRange) => DeriveRange;
  /** Tests only: shorter dashboard session timeouts and sign-in lockout (defaults in src/dashboard/). */
  dashboard?: { timeouts?: SessionTimeouts; loginGuard?: LoginGuardOptions };
}
