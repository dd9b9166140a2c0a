/** One page as the iterator needs it. */
export interface Page<T> {
  readonly items: readonly T[];
  /** Where the following page starts (null: there is none, and none to resume from). */
  readonly cursor: string | null;
  /** Whether a following page exists now. */
  readonly more: boolean;
}

/**
 * Every item of a cursor-paged list, fetching one page at a time as the loop asks for more:
 * `for await (const invoice of client.invoices.list({ status: 'paid' })) …`.
 *
 * `cursor` is where to resume after a stop: the start of the page being read until all of its
 * items were yielded, then the next page's cursor. A loop that breaks halfway through a page and
 * resumes from `cursor` sees that page's items again rather than missing any (events are
 * delivered at least once anyway: dedupe on the id).
 */
export class CursorList<T> implements AsyncIterable<T> {
  private position: string | undefined;

  constructor(
    private readonly fetchPage: (cursor: string | undefined) => Promise<Page<T>>,
    start?: string,
  ) {
    this.position = start;
  }

  /** The cursor to pass as the start of a later iteration (undefined: from the beginning). */
  get cursor(): string | undefined {
    return this.position;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const page = await this.fetchPage(this.position);
      yield* page.items;
      if (page.cursor !== null) this.position = page.cursor;
      if (!page.more || page.cursor === null) return;
    }
  }

  /** Every page at once: at most `max` items (default 1000), so a runaway list cannot exhaust memory. */
  async toArray(max = 1000): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this) {
      if (out.length >= max) break;
      out.push(item);
    }
    return out;
  }
}
