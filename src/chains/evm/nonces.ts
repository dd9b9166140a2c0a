import { Mutex } from './mutex';

/**
 * The highest nonce among this wallet's payouts that are stored signed and not finished (the
 * withdrawal is still open), or null when there is none: the host's PayoutBook.highestOpenSequence
 * for this wallet (chains/types.ts), read from its database.
 */
export type StoredNonces = () => Promise<number | null>;

/**
 * Nonces of one hot wallet on one chain. Assignment is serialized by a mutex; under it the next
 * nonce is max(the node's pending count, highest stored open payout's nonce + 1), skipping nonces
 * this process signed whose row may not be committed yet.
 *
 * Why the stored floor: a payout is signed and persisted before it is broadcast, which the node
 * cannot know about, and the process may restart (or wait long) in between. The database is the
 * durable reservation book: a nonce stays reserved while its withdrawal is open, across restarts,
 * however long the broadcast waits. The in-memory reservations only bridge the moment between
 * signing and the commit of the row; one above the stored floor still there after `reserveMs`
 * belongs to a signature whose row was never committed (rolled back) and is freed, so a lost
 * signature cannot leave a nonce gap that blocks the wallet.
 *
 * Should a nonce still end up used by another transaction (another signer on the same wallet),
 * broadcasting reports PayoutNonceConsumedError and the withdrawal waits for an operator: the node
 * not knowing our transaction does not prove it was never mined, so nothing is signed anew and no
 * funds are released on that signal.
 */
export class WalletNonces {
  private readonly mutex = new Mutex();
  private readonly unsent = new Map<number, number>(); // nonce -> signedAt (ms)

  constructor(
    private readonly reserveMs = 120_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `sign` with the next free nonce; the nonce is reserved when `sign` resolves. */
  assign<T>(pendingNonce: () => Promise<number>, sign: (nonce: number) => Promise<T>, stored?: StoredNonces): Promise<T> {
    return this.mutex.run(async () => {
      const pending = await pendingNonce();
      const highestStored = stored ? await stored() : null;
      const now = this.now();
      for (const [nonce, at] of this.unsent) {
        const covered = nonce < pending || (highestStored !== null && nonce <= highestStored);
        if (covered || now - at > this.reserveMs) this.unsent.delete(nonce);
      }
      let nonce = highestStored === null ? pending : Math.max(pending, highestStored + 1);
      while (this.unsent.has(nonce)) nonce += 1;
      const signed = await sign(nonce);
      this.unsent.set(nonce, now);
      return signed;
    });
  }

  /** The node has it now: its pending count covers the nonce. */
  sent(nonce: number): void {
    this.unsent.delete(nonce);
  }
}

/** One nonce book per (chain, wallet) in this process, shared by adapters that use the same wallet. */
const books = new Map<string, WalletNonces>();

export function walletNonces(chainId: number, address: string): WalletNonces {
  const key = `${chainId}:${address.toLowerCase()}`;
  let book = books.get(key);
  if (!book) books.set(key, (book = new WalletNonces()));
  return book;
}
