// ---- Sweeps: the family's side of the treasury (docs/treasury.md, src/treasury/) ----
//
// The host (src/treasury/) owns what every family needs, as for payouts: a transaction is signed
// and stored on the sweep row BEFORE it is broadcast, and after a crash the stored one is broadcast
// again, never signed anew; it books the ledger. The family (its folder, like its payouts) knows its
// chain: what an address holds, what moving it costs, how to fund that cost (EVM: a gas top-up
// from the hot wallet; TRON later: activation + the TRX the transfer burns; SOLANA later: the hot
// wallet as fee payer, no top-up), and how to sign and check the transactions. Amounts are decimal
// strings: `token` in token units, `gas` in the chain's native coin.

/** A signed sweep transaction (the same shape as a SignedPayout: stored before it is broadcast). */
export interface SweepTx {
  readonly txHash: string;
  readonly raw: string;
  readonly meta: Record<string, string | number>;
  /** Top-ups from a wallet with a nonce: the wallet key and nonce (the payout book's columns). */
  readonly wallet?: string;
  readonly sequence?: number;
}

/** The hot wallet's durable nonce book (chains/types.ts PayoutBook, shared with payouts). */
export interface SequenceBook {
  highestOpenSequence(wallet: string): Promise<number | null>;
}

export interface SweepBalances {
  readonly token: string;
  readonly gas: string;
}

export interface SweepQuote {
  /** The most the token transfer can cost in gas coin (EVM: estimateGas × maxFeePerGas). */
  readonly fee: string;
  /** What to send the address before the transfer: fee minus what it holds, or 0. */
  readonly topUp: string;
}

export interface SweepTransferRequest {
  /** Sweep id: the idempotency key of its transactions. */
  readonly sweepId: string;
  /** The deposit address's derivation index (its key signs the transfer). */
  readonly index: number;
  readonly from: string;
  readonly to: string;
  /** Token units, decimal string. */
  readonly amount: string;
}

export interface SweepTopUpRequest {
  readonly sweepId: string;
  readonly to: string;
  /** Gas coin units, decimal string. */
  readonly amount: string;
  /** The hot wallet's durable nonce book, shared with payouts (EVM). */
  readonly book?: SequenceBook;
}

/** Where a stored sweep transaction stands; `fee` (gas coin) is read from its receipt once mined or reverted. */
export type SweepTxStatus =
  | { readonly state: 'unknown' }
  | { readonly state: 'pending' }
  | { readonly state: 'mined'; readonly blockHeight: number; readonly confirmations: number; readonly final: boolean; readonly fee: string }
  | { readonly state: 'reverted'; readonly blockHeight: number; readonly confirmations: number; readonly final: boolean; readonly fee: string };

/** A family's sweeps (ChainAdapter.sweeps). Families without one are reported, not swept. */
export interface ChainSweeper {
  /** The gas coin's symbol (BNB, POL, ETH...). */
  readonly gasCoin: string;
  /** The hot wallet's address (a sweep's destination unless the cold overflow applies). */
  hotAddress(): string;
  balances(address: string): Promise<SweepBalances>;
  /** The cost of moving `amount` from `from` to `to`, and the top-up it needs. */
  quote(request: Omit<SweepTransferRequest, 'sweepId'>): Promise<SweepQuote>;
  signTopUp(request: SweepTopUpRequest): Promise<SweepTx>;
  signTransfer(request: SweepTransferRequest): Promise<SweepTx>;
  /** Sending the same stored transaction twice is harmless. */
  broadcast(tx: SweepTx): Promise<void>;
  status(tx: SweepTx): Promise<SweepTxStatus>;
}
