/**
 * Seqno assignment for the service wallet, one signing at a time (FIFO), in this process.
 *
 * A new payout takes max(the wallet's seqno, the payout book's highest open seqno + 1), skipping
 * seqnos this process signed whose withdrawal row may not be committed yet (the book sees committed
 * rows only). A reservation ends when the book or the chain covers it, or after `reserveMs` (its row
 * was rolled back: the seqno is free again, so a lost signature leaves no gap in the queue).
 * One daemon signs at a time (the engine lock), so an in-process lock serialises every signer.
 */
export class SeqnoBook {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly unsent = new Map<number, number>(); // seqno -> reserved at (ms)

  constructor(
    private readonly reserveMs = 120_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Runs `task` alone: signings of one wallet never overlap. */
  exclusive<T>(task: () => Promise<T>): Promise<T> {
    const result = this.tail.then(task, task);
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** The next free seqno (call inside exclusive()); `highestOpen` is the book's answer, null when none. */
  next(chainSeqno: number, highestOpen: number | null): number {
    const now = this.now();
    for (const [seqno, at] of this.unsent) {
      const covered = seqno < chainSeqno || (highestOpen !== null && seqno <= highestOpen);
      if (covered || now - at > this.reserveMs) this.unsent.delete(seqno);
    }
    let seqno = highestOpen === null ? chainSeqno : Math.max(chainSeqno, highestOpen + 1);
    while (this.unsent.has(seqno)) seqno += 1;
    return seqno;
  }

  /** `seqno` is signed and about to be stored by the host (call inside exclusive()). */
  reserve(seqno: number): void {
    this.unsent.set(seqno, this.now());
  }
}

/** One book per service wallet in this process, shared by adapters that sign for the same wallet. */
const books = new Map<string, SeqnoBook>();

export function seqnoBook(walletRaw: string): SeqnoBook {
  let book = books.get(walletRaw);
  if (!book) books.set(walletRaw, (book = new SeqnoBook()));
  return book;
}
