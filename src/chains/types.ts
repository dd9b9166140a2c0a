import type { ChainSweeper } from './sweeps';
import type { NetworkCode } from '../domain/networks';
import type { RunLoopStats } from './sync/run-loop';
import type { LandedPayout, PayoutFunds, PayoutFundsRequest, PayoutRequest, PayoutStatus, SignedPayout } from './payout-types';

// The payout contract's types live in payout-types.ts; every importer of this file sees them here too.
export * from './payout-types';

/**
 * The one interface every chain family implements (devnet, evm, tron, ton, solana).
 * An adapter is the only importer of its SDK. It streams a closed union of observations from a
 * cursor; it never decides an invoice's status (listeners record, the invoice actor decides).
 */

/** A JSON value: what a cursor may hold. */
export type CursorJson = string | number | boolean | null | readonly CursorJson[] | { readonly [key: string]: CursorJson };

/**
 * Where a watcher resumes: the last point of the chain it has fully processed. Its shape belongs to
 * the family (block families: { height, hash }; an account's transactions: a logical time), built
 * and read only by its adapter; the daemon stores it as JSON (watcher_cursors.cursor) and never
 * looks inside it.
 */
export type ChainCursor = { readonly [key: string]: CursorJson };

/** A block of a block-based chain: its height and hash (reorgs, finality, the block families' cursor). */
export type BlockRef = { readonly height: number; readonly hash: string };

/** A token transfer to an address the watcher asked about (or to the shared memo address). */
export interface TransferObservation {
  readonly kind: 'transfer';
  readonly network: NetworkCode;
  readonly txHash: string;
  /** Log index / instruction index: (network, txHash, eventIndex) identifies a payment once. */
  readonly eventIndex: number;
  readonly blockHeight: number;
  readonly blockHash: string;
  readonly from: string;
  /** Normalized as the adapter's normalizeAddress() returns it. */
  readonly to: string;
  /** Text memo / comment (TON); null elsewhere or when absent. */
  readonly memo: string | null;
  /** Decimal string in token units (e.g. "10.5"), already divided by the token's decimals. */
  readonly amount: string;
  /**
   * Its block's timestamp: the invoice judges "paid in time" by it (the earlier of it and the time
   * the transfer is applied), not by when the watcher got to it.
   */
  readonly blockTime: Date;
  /**
   * Its confirmations as of the point the stream reaches with this step (the family counts them:
   * block depth on EVM and TRON), and whether it can no longer be reverted there.
   */
  readonly confirmations: number;
  readonly final: boolean;
}

/** A transfer as a block source's logs show it: the follower stamps it (block time, depth). */
export type UnstampedTransfer = Omit<TransferObservation, 'blockTime' | 'confirmations' | 'final'>;

/** Where a transfer sits on its chain, as far as counting its confirmations needs. */
export interface TransferPlace {
  readonly blockHeight: number;
  readonly blockHash: string;
}

/** A transfer's confirmations at a cursor, and whether it is final there (ChainAdapter.confirmationsAt). */
export interface Confirmations {
  readonly confirmations: number;
  readonly final: boolean;
}

export type ChainObservation =
  /**
   * A new head was accepted (blocks up to `height` are scanned). `cursor`: where to resume once
   * this block's observations are recorded (opaque, the family's).
   */
  | {
      readonly kind: 'block';
      readonly network: NetworkCode;
      readonly height: number;
      readonly hash: string;
      readonly parentHash: string;
      readonly timestamp: Date;
      readonly cursor: ChainCursor;
    }
  | TransferObservation
  /**
   * Every block at or below `height` is final on this network (cannot be reorged away). `cursor`:
   * the final point as the family checks it at start (WatchOptions.finalized).
   */
  | { readonly kind: 'finalize'; readonly network: NetworkCode; readonly height: number; readonly hash: string; readonly cursor: ChainCursor }
  /**
   * Blocks above `commonAncestor` were replaced. Transfers seen in them are gone unless they are
   * observed again on the new branch. The stream continues from commonAncestor + 1 (`cursor`).
   */
  | { readonly kind: 'reorg'; readonly network: NetworkCode; readonly commonAncestor: BlockRef; readonly depth: number; readonly cursor: ChainCursor };

/** The addresses a watcher cares about, kept in memory and updated as the pool grows. */
export interface WatchedAddresses {
  has(normalizedAddress: string): boolean;
  size(): number;
  values(): Iterable<string>;
}

/**
 * The watcher's own set (ChainAdapter.newWatchedSet): the family decides how it matches fast
 * (EVM: a bitmap over the addresses' tails, read straight from log topics); the watcher only adds.
 */
export interface WatchedSet extends WatchedAddresses {
  addAll(normalizedAddresses: Iterable<string>): void;
}

export interface ObservationSink {
  /** Awaited: the adapter does not emit the next observation before this resolves (back-pressure). */
  (observation: ChainObservation): Promise<void>;
}

export interface WatchOptions {
  /** null: start at the current head (first run). */
  readonly from: ChainCursor | null;
  /**
   * The last block the watcher saw as final (persisted with the cursor). Checked first: when the
   * chain no longer holds it (a reorg deeper than finality, e.g. while the daemon was down), the
   * watch reports ReorgBeyondFinalityError and emits nothing.
   */
  readonly finalized?: ChainCursor | null;
  readonly watched: WatchedAddresses;
  readonly sink: ObservationSink;
  /** Called for every RPC/scan failure; the adapter retries with backoff on its own. */
  readonly onError?: (error: Error) => void;
  /**
   * Pushed after each step whose observations were all accepted, by a watch that can vouch for a
   * chain time beyond its last block's timestamp (ChainWatch.syncedUntil: devnet, idle at its head).
   * The watcher passes it on to the invoice actors; nothing polls for it.
   */
  readonly onSynced?: (until: Date) => void;
}

export interface ChainWatch {
  stop(): Promise<void>;
  /** The chain head as last seen (for lag). */
  head(): number | null;
  /**
   * Optional: a chain time up to which every block has been delivered to the sink and accepted,
   * beyond the last block's timestamp; null when it cannot vouch. Only a watch that knows the head
   * exactly can: devnet (in-process chain; a later block is never stamped before now) vouches for
   * now once idle at the head. A live RPC may lag, so live watches leave it out.
   */
  syncedUntil?(): Date | null;
  /**
   * The figures of the watch's run loop (sync/run-loop.ts: steps, retries, errors by class), the
   * same for every family that runs one (the block follower, TON, SOLANA); the metrics read them.
   */
  loopStats?(): RunLoopStats;
}

export interface PaymentLinkInput {
  readonly address: string;
  /** The address as the adapter's codec derived it (CodecLinkInput.derived). */
  readonly derived?: boolean;
  /** Decimal string in token units. */
  readonly amount: string;
  readonly memo: string | null;
}

export interface ChainAdapter {
  readonly network: NetworkCode;
  /** 'devnet' for the simulated chain, 'live' for a real RPC. */
  readonly mode: 'devnet' | 'live';
  /** The token contract / jetton master / mint that counts; nothing else is a payment. */
  readonly tokenContract: string;
  readonly tokenDecimals: number;
  /**
   * The reorg window: a block with this many confirmations is final; a reorg reaching it halts the
   * watch (ReorgBeyondFinalityError) or, on devnet, is refused. Fixed when the adapter is created.
   */
  readonly finalityDepth: number;

  /** Prepare (connect, check token decimals against the expected ones). Throws when misconfigured. */
  init(): Promise<void>;
  /** Start streaming observations. One watch at a time per adapter. */
  watch(options: WatchOptions): ChainWatch;
  /**
   * The canonical block at `height` as a cursor (null above the head): an operator's rescan
   * resumes from it, so the watch sees no fake reorg. Optional: without it rescans are refused.
   */
  blockAt?(height: number): Promise<ChainCursor | null>;
  /**
   * The height a cursor of this family stands at (operators' lag and rescan bounds); throws
   * InvalidCursorError when it is not one of this family's cursors.
   */
  cursorHeight(cursor: ChainCursor): number;
  /**
   * The confirmations of a transfer at `place` once the stream has reached `cursor`, and whether it
   * is final there (EVM/TRON: block depth against finalityDepth). The watcher never counts them itself.
   */
  confirmationsAt(place: TransferPlace, cursor: ChainCursor): Confirmations;

  /** An empty set of watched addresses with this family's fast matching; pass it to watch(). */
  newWatchedSet(): WatchedSet;

  /** Deposit address number `index` of the HD seed (address_pool networks). */
  deriveDepositAddress(index: number): string;
  /**
   * Deposit addresses number from .. from+count-1, in order (address_pool networks), each equal to
   * deriveDepositAddress(i). Present only where the codec derives ranges cheaper per address (EVM,
   * TRON: AddressCodec.deriveDepositAddresses); without it, derive one index at a time.
   */
  readonly deriveDepositAddresses?: (from: number, count: number) => string[];
  /**
   * The same deposit addresses derived by a second, independent implementation
   * (AddressCodec.crossCheckDepositAddresses): the pool takes an address only where both agree.
   */
  crossCheckDepositAddresses(from: number, count: number): Promise<string[]>;
  /** The shared deposit address (master_memo networks). */
  sharedDepositAddress(): string;
  isValidAddress(address: string): boolean;
  /** Canonical form used as the key of watched-address sets (e.g. lowercase hex on EVM). */
  normalizeAddress(address: string): string;
  /** normalizeAddress for this adapter's own derived addresses, without re-validating them (AddressCodec.normalizeDerivedAddress); absent: use normalizeAddress. */
  readonly normalizeDerivedAddress?: (address: string) => string;
  /** The wallet link encoded in an invoice's QR code (DESIGN.md, QR codes and payment links). */
  paymentLink(input: PaymentLinkInput): string;
  /**
   * Why a valid address cannot be paid out to (SOLANA: off the ed25519 curve, a token account
   * pasted instead of its owner), as a 422 code and message; null when it can. Asked when an
   * address is whitelisted and when a withdrawal names it. Absent: every valid address can.
   */
  payeeRefusal?(address: string): { readonly code: string; readonly message: string } | null;
  /**
   * payeeRefusal's part that reads the chain (SOLANA: an account owned by the Token or Token-2022
   * program, `address_token_account`; TON: a jetton wallet, it answers `get_wallet_data`,
   * `payee_is_jetton_wallet`), asked after it at whitelisting and at withdrawal creation; the family
   * asks it again before it signs. Rejects when the node does not answer. The message names what to
   * use instead.
   */
  payeeAccountRefusal?(address: string): Promise<{ readonly code: string; readonly message: string } | null>;

  /**
   * Sign a payout from the hot wallet; does not broadcast (the host stores the result first). Input
   * errors (bad address or amount) and wallet shortfalls are thrown with their codes (see
   * actors/withdrawals/payout-errors.ts PERMANENT_CODES); anything else is retried.
   */
  signPayout(request: PayoutRequest): Promise<SignedPayout>;
  /**
   * Whether the hot wallet can pay this payout now (USDT and the gas coin), read from the chain.
   * The host asks it before every new signature and does not sign while anything is short: the
   * withdrawal waits with an operator alert (actors/withdrawals/payout-funds.ts). A node that does
   * not answer throws (any error: the host retries, never fails the withdrawal on it).
   */
  payoutFunds(request: PayoutFundsRequest): Promise<PayoutFunds>;
  /**
   * Send a signed payout. Sending the same one twice is harmless (already known or already mined is
   * success). An expired one: throw with code PAYOUT_EXPIRED_CODE (or resolve; payoutStatus decides).
   */
  broadcastPayout(payout: SignedPayout): Promise<void>;
  /** Where the payout stands on the chain; `expired` only when it can never execute (see PayoutStatus). */
  payoutStatus(payout: SignedPayout): Promise<PayoutStatus>;
  /**
   * Replace a stuck payout with the same sequence number and a higher fee (EVM), so at most one of
   * its versions can ever execute; its meta must let payoutStatus find every version. Absent where
   * a payout cannot be replaced in place (TRON, TON, SOLANA: they expire instead).
   */
  bumpPayout?(payout: SignedPayout): Promise<SignedPayout>;
  /**
   * Families whose `expired` rests on the answers of a provider (SOLANA): where the signed
   * transaction `txHash` of a payout landed in a final block, or null while no answer shows it.
   * The host asks it for a day about every version it replaced after an expiry, once the withdrawal
   * is closed (actors/withdrawals/expired-payout-watch.ts); one found is an operator alert and is
   * booked. While the withdrawal is open, payoutStatus() must report any version that landed.
   */
  payoutLanded?(txHash: string): Promise<LandedPayout | null>;
  /** The family's sweeps into the hot wallet (chains/sweeps.ts, src/treasury/); absent: nothing is swept. */
  readonly sweeps?: ChainSweeper;

  close(): Promise<void>;
}

/** One JSON-RPC round trip of a live adapter (for latency and error metrics). */
export interface RpcObservation {
  readonly network: NetworkCode;
  readonly method: string;
  readonly ms: number;
  readonly ok: boolean;
}

export type RpcObserver = (observation: RpcObservation) => void;

/** Devnet-only controls (chainpay devnet pay|mine|reorg). */
export interface DevnetControls {
  pay(input: { to: string; amount: string; memo?: string | null; token?: 'usdt' | 'fake'; from?: string }): Promise<{ txHash: string; blockHeight: number }>;
  mine(blocks: number): Promise<{ head: number; hash: string }>;
  reorg(depth: number): Promise<{ head: number; hash: string }>;
  head(): { head: number; hash: string };
}
