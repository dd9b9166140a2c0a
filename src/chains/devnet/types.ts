/** The devnet's stored shapes (keep them JSON-plain: an older version journaled them as JSON lines). */

/** A token transfer as it sits on the devnet chain (every token, not only USDT). */
export interface DevnetTransfer {
  readonly txHash: string;
  /** Position of the event in its block (EVM log index semantics). */
  readonly eventIndex: number;
  readonly from: string;
  /** As the sender wrote it. */
  readonly to: string;
  /** codec.normalizeAddress(to): the key matched against watched sets. */
  readonly toKey: string;
  /** Canonical decimal string in token units. */
  readonly amount: string;
  readonly memo: string | null;
  /** Token contract / jetton master / mint id: only the configured USDT id is a payment. */
  readonly contract: string;
}

/**
 * A transfer waiting in the mempool; its event index is given when a block includes it.
 * `validUntilMs` (devnet payouts of families whose transactions expire: TRC20, TON, SOLANA): a block
 * stamped later never includes it, and the mempool drops it then. Absent or null: never expires.
 */
export type PendingTransfer = Omit<DevnetTransfer, 'eventIndex'> & { readonly validUntilMs?: number | null };

export interface DevnetBlock {
  readonly height: number;
  readonly hash: string;
  readonly parentHash: string;
  /** Epoch milliseconds, from the injected clock, never below the parent's. */
  readonly timestamp: number;
  readonly transfers: readonly DevnetTransfer[];
}
