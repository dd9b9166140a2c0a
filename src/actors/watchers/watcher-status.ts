import type { NetworkCode } from '../../domain/networks';

/**
 * starting → running ⇄ paused (operator) · halted (a non-retryable error such as a reorg deeper
 * than finality: the watcher stops and an operator must act) · stopped (daemon shutdown).
 */
export type WatcherState = 'starting' | 'running' | 'paused' | 'halted' | 'stopped';

/**
 * The deposit-address pool of the network: `ok` while it refills; `halted` once two independent
 * derivations of an address differed (no new address enters the pool until the daemon restarts;
 * the free addresses already in it were checked and are still handed out); `none` without a pool (TON).
 */
export interface AddressPoolView {
  readonly state: 'ok' | 'halted' | 'none';
  /** Why it halted (the index and both addresses), null otherwise. */
  readonly error: string | null;
  readonly haltedAt: Date | null;
}

export interface WatcherStatusView {
  readonly network: NetworkCode;
  readonly mode: 'devnet' | 'live';
  readonly state: WatcherState;
  /** The chain head as last seen. */
  readonly head: number;
  /** The last block whose observations were all committed. */
  readonly cursor: number;
  readonly lagBlocks: number;
  /** How long the first unprocessed block has waited (0 when caught up). */
  readonly lagSeconds: number;
  /** Clock time the cursor last moved. */
  readonly lastBlockAt: Date | null;
  readonly lastError: string | null;
  readonly lastErrorAt: Date | null;
  /** No failure since the last successful step, and not halted. */
  readonly rpcHealthy: boolean;
  readonly watched: number;
  /** Unfinal transfers whose confirmations this watcher still counts. */
  readonly tracked: number;
  readonly addressPool: AddressPoolView;
}

/** Lag in seconds: the age of the newest processed block while behind; 0 when caught up. */
export function lagSeconds(input: { lagBlocks: number; now: Date; cursorBlockTime: Date | null; since: Date | null }): number {
  if (input.lagBlocks <= 0) return 0;
  const from = input.cursorBlockTime ?? input.since;
  if (from === null) return 0;
  return Math.max(0, (input.now.getTime() - from.getTime()) / 1000);
}
