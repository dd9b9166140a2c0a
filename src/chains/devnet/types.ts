/** The devnet's stored shapes (also the journal's line format; keep them JSON-plain). */

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

/** A transfer waiting in the mempool; its event index is given when a block includes it. */
export type PendingTransfer = Omit<DevnetTransfer, 'eventIndex'>;

export interface DevnetBlock {
  readonly height: number;
  readonly hash: string;
  readonly parentHash: string;
  /** Epoch milliseconds, from the injected clock, never below the parent's. */
  readonly timestamp: number;
  readonly transfers: readonly DevnetTransfer[];
}

export type JournalEntry =
  | { readonly type: 'block'; readonly block: DevnetBlock }
  /** Drop the last `depth` blocks; the replacement blocks follow as `block` entries. */
  | { readonly type: 'reorg'; readonly depth: number }
  | { readonly type: 'mempool'; readonly transfer: PendingTransfer };
