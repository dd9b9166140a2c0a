/** What one input of a batch came to: a value for its caller, or the error its caller gets. */
export type BatchOutcome<Out> = { readonly ok: true; readonly value: Out } | { readonly ok: false; readonly error: unknown };

/** Runs one batch of inputs that share a key; answers one outcome per input, in order. */
export type BatchRunner<In, Out> = (key: string, inputs: readonly In[]) => Promise<readonly BatchOutcome<Out>[]>;

/** An input waiting for its batch, and how to answer its caller. */
export interface Waiting<In, Out> {
  readonly input: In;
  readonly resolve: (value: Out) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Group commit per key. At most one batch per key runs at a time; what arrives meanwhile waits and
 * goes in the next batch (up to `maxBatch`). For withdrawals the key is the merchant: the work of
 * one merchant is serialized anyway (its row lock), so a hot merchant's requests queue here, in
 * memory, instead of each holding a database connection while it waits for the lock, and they
 * commit together in one transaction instead of one after another. For new invoices the key is
 * the network: the rows created meanwhile are inserted by one statement.
 */
export class KeyedBatches<In, Out> {
  private readonly waiting = new Map<string, Waiting<In, Out>[]>();

  constructor(
    private readonly runner: BatchRunner<In, Out>,
    private readonly maxBatch: number,
  ) {}

  submit(key: string, input: In): Promise<Out> {
    return new Promise<Out>((resolve, reject) => {
      const queue = this.waiting.get(key);
      if (queue) {
        queue.push({ input, resolve, reject });
        return;
      }
      this.waiting.set(key, [{ input, resolve, reject }]);
      void this.drain(key);
    });
  }

  /** Keys with a batch running or waiting (for tests and introspection). */
  get activeKeys(): number {
    return this.waiting.size;
  }

  private async drain(key: string): Promise<void> {
    // The first batch of a key waits one event-loop turn: requests that arrived together (one read
    // of the relay stream carries many) reach here a few microtasks apart, and would otherwise be a
    // batch of one followed by a batch of the rest.
    await new Promise<void>((resolve) => setImmediate(resolve));
    // Invariant: while a key is in `waiting`, exactly one drain loop runs for it.
    for (;;) {
      const queue = this.waiting.get(key)!;
      if (queue.length === 0) {
        this.waiting.delete(key);
        return;
      }
      const batch = queue.splice(0, this.maxBatch);
      try {
        const outcomes = await this.runner(
          key,
          batch.map((w) => w.input),
        );
        batch.forEach((w, i) => {
          const o = outcomes[i];
          if (!o) w.reject(new Error('batch runner answered fewer outcomes than inputs'));
          else if (o.ok) w.resolve(o.value);
          else w.reject(o.error);
        });
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
  }
}
