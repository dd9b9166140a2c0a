import { Mutex } from './mutex';

/**
 * Nonces of one hot wallet on one chain. Assignment is serialized by a mutex; the next nonce is
 * the node's pending count, skipping nonces this process signed but has not broadcast yet (a
 * signed payout is persisted before its broadcast, which the node cannot know about).
 * A reservation never broadcast expires after `reserveMs`, so an abandoned signature cannot
 * block the wallet forever; if it is broadcast later anyway, one of the two transactions with
 * that nonce fails with PayoutNonceConsumedError and is signed anew: never two payments.
 */
export class WalletNonces {
  private readonly mutex = new Mutex();
  private readonly unsent = new Map<number, number>(); // nonce -> signedAt (ms)

  constructor(private readonly reserveMs = 120_000, private readonly now: () => number = Date.now) {}

  /** Runs `sign` with the next free nonce; the nonce is reserved when `sign` resolves. */
  assign<T>(pendingNonce: () => Promise<number>, sign: (nonce: number) => Promise<T>): Promise<T> {
    return this.mutex.run(async () => {
      const pending = await pendingNonce();
      const now = this.now();
      for (const [nonce, at] of this.unsent) if (nonce < pending || now - at > this.reserveMs) this.unsent.delete(nonce);
      let nonce = pending;
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
