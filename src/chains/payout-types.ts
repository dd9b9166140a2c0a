// ---- Payouts: the family's contract (docs/chains.md, "The family contract") ----
//
// The host (src/actors/withdrawals/payout-steps.ts) owns what every family needs: a payout is signed
// under its withdrawal row's lock and stored on the row (signed_raw, signed_meta, payout_wallet,
// payout_sequence, payout_attempt) BEFORE it is broadcast; after a crash the stored transaction is
// broadcast again, never signed anew. It polls payoutStatus() and acts on what the family answers:
// - 'unknown' -> broadcast the same stored transaction again;
// - 'pending' for PAYOUT_BUMP_AFTER_MS, where the family has bumpPayout() (EVM: same nonce, higher
//   fee) -> the replacement is stored, then sent; whichever version is mined counts;
// - 'expired' (the stored transaction can never execute, proven on the chain: TRON expiration,
//   TON valid_until + unchanged seqno, SOLANA lastValidBlockHeight) -> under the row's lock, and only
//   while the row still holds that very transaction, signPayout() is called again with attempt + 1;
//   the new one is stored before it is broadcast. One expiry, at most one new signature.
// Everything family-specific (nonces, seqnos, chain ids, blockhashes, expirations) lives in the
// family's SignedPayout.meta, which the host stores and hands back but never interprets (it only adds
// its own keys: signed_at_ms, latest_tx_hash, expired_tx_hashes; store/repos/payout-rows.ts HOST_META).

/**
 * The host's durable book of signed payouts (the withdrawals table), for families whose payouts take a
 * per-wallet sequence number (EVM nonce, TON seqno). A payout stored signed but not broadcast yet is
 * invisible to the chain; this is where it keeps its number across restarts.
 */
export interface PayoutBook {
  /**
   * The highest SignedPayout.sequence among the payouts stored signed for `wallet` (the family's own
   * SignedPayout.wallet key) whose withdrawal is still open, leaving out the payout being signed
   * (a re-signing after expiry does not count its own expired transaction); null when there is none.
   * Committed rows only: the family bridges its own signatures whose row is not committed yet
   * (EVM: src/chains/evm/nonces.ts), and serialises its own signings per wallet.
   */
  highestOpenSequence(wallet: string): Promise<number | null>;
  /**
   * The hash of the newest signed transaction committed on withdrawal `id`'s row; null when none is
   * committed (yet). A family that carries several payouts in one transaction (TON: up to 4 transfers
   * per external message) adds a payout to another's transaction only once that one is committed.
   */
  storedTxHash?(id: string): Promise<string | null>;
}

/**
 * What the host asks a family before it signs a payout (docs/chains.md, "A hot wallet short of money"):
 * can the hot wallet pay `amount` of USDT to `to`, plus the gas coin for it, on top of the payouts
 * already signed and not yet on the chain (`inFlight`, which the host counts from its book)?
 */
export interface PayoutFundsRequest {
  readonly to: string;
  /** Decimal string in token units. */
  readonly amount: string;
  /** Payouts of this network stored signed, still open, not seen mined: their USDT sum and count. */
  readonly inFlight: { readonly amount: string; readonly count: number };
}

/** One asset the hot wallet lacks: what it holds and what the payouts (this one plus in flight) need, decimal strings. */
export interface PayoutShortfall {
  /** `token`: the USDT it sends; `gas`: the chain's fee coin. */
  readonly kind: 'token' | 'gas';
  /** USDT, or the gas coin's symbol (TRX, TON, SOL, BNB, POL, ETH). */
  readonly asset: string;
  readonly balance: string;
  readonly needed: string;
}

/** The family's answer: the hot wallet's address and what it lacks (empty: it can pay). */
export interface PayoutFunds {
  readonly wallet: string;
  readonly shortfalls: readonly PayoutShortfall[];
}

export interface PayoutRequest {
  /** Withdrawal uuid: the idempotency key of one payout. */
  readonly id: string;
  readonly to: string;
  /** Decimal string in token units. */
  readonly amount: string;
  /**
   * 0 for the first signature; n after n stored transactions of this payout expired. A family whose
   * signing is deterministic must make a new attempt a different transaction (devnet puts it in the body).
   */
  readonly attempt?: number;
  /** The host's durable payout book (absent in tools and unit tests: the chain's view only). */
  readonly book?: PayoutBook;
  /**
   * A text comment for the payee (a withdrawal's `memo`, TON only: the jetton transfer's
   * forward_payload). Absent elsewhere; a family without comments never receives one.
   */
  readonly comment?: string;
}

/** A signed transaction, persisted before it is broadcast so a crash never signs anew. */
export interface SignedPayout {
  readonly txHash: string;
  /** Serialized signed transaction (hex/base64), opaque to callers. */
  readonly raw: string;
  /** Family-specific data needed to rebroadcast, check, bump or judge expiry (nonce, valid_until...), JSON-serialisable. */
  readonly meta: Record<string, string | number>;
  /**
   * Families with per-wallet sequence numbers: the wallet key (family-defined, e.g. EVM
   * `<chainId>:<from>`) and this transaction's number in it. The host stores both in columns and
   * answers PayoutBook.highestOpenSequence from them. Absent elsewhere (TRON, SOLANA, devnet).
   */
  readonly wallet?: string;
  readonly sequence?: number;
}

export type PayoutStatus =
  | { readonly state: 'unknown' } // not seen by the chain (yet), and it may still execute: rebroadcast
  | { readonly state: 'pending' }
  /**
   * `txHash`: the transaction that was mined, when it is not `payout.txHash` (after a fee bump the
   * original may win the race against its replacement; the withdrawal must show the mined one).
   */
  | { readonly state: 'mined'; readonly blockHeight: number; readonly confirmations: number; readonly txHash?: string }
  | { readonly state: 'reverted'; readonly blockHeight: number; readonly txHash?: string }
  /**
   * This signed transaction can never execute, proven by the chain (not by a timeout on our side):
   * its expiry passed on a block that cannot be reorged away and the chain does not hold it. Only
   * this answer lets the host sign the payout anew. A family without expiry never returns it (EVM:
   * a nonce stays valid; a stuck payout is bumped instead).
   */
  | { readonly state: 'expired' };

/**
 * Broadcasting a transaction whose expiry already passed (TRON TRANSACTION_EXPIRATION_ERROR, SOLANA
 * blockhash not found, TON valid_until): the family throws an error with this code. The host does not
 * fail the withdrawal on it; it waits and asks payoutStatus(), which says `expired` once that is final.
 */
export const PAYOUT_EXPIRED_CODE = 'payout_expired';

/** A signed transaction found in a final block: its height (SOLANA: slot) and whether it failed there. */
export interface LandedPayout {
  readonly blockHeight: number;
  readonly reverted: boolean;
}
