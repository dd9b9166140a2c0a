import { WriteBatcher } from './write-batcher';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('WriteBatcher', () => {
  /** A batcher whose writes are recorded and complete only when the test says so. */
  function recorded() {
    const writes: number[][] = [];
    const pending: (() => void)[] = [];
    // An item's size is its value; messages of at most 100.
    const batcher = new WriteBatcher<number>(
      (items, written) => {
        writes.push(items);
        pending.push(written);
      },
      (n) => n,
      100,
    );
    return { batcher, writes, complete: () => pending.shift()?.() };
  }

  it('writes what was queued in one turn as one batch, at the end of that turn', async () => {
    const { batcher, writes } = recorded();
    batcher.push(1);
    batcher.push(2);
    batcher.push(3);
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual([[1, 2, 3]]);
  });

  it('gathers what comes while a write is under way and sends it when that write completes', async () => {
    const { batcher, writes, complete } = recorded();
    batcher.push(1);
    await turn();
    batcher.push(2);
    await turn();
    batcher.push(3);
    await turn();
    expect(writes).toEqual([[1]]);
    complete();
    await turn();
    expect(writes).toEqual([[1], [2, 3]]);
    complete();
    await turn();
    expect(writes).toEqual([[1], [2, 3]]);
    expect(batcher.queued).toBe(0);
  });

  it('flushNow writes at once, even with a write under way, and keeps the order', async () => {
    const { batcher, writes, complete } = recorded();
    batcher.push(1);
    await turn();
    batcher.push(2);
    batcher.flushNow();
    expect(writes).toEqual([[1], [2]]);
    complete();
    complete();
    batcher.push(3);
    await turn();
    expect(writes).toEqual([[1], [2], [3]]);
    batcher.flushNow();
    expect(writes).toHaveLength(3);
  });

  it('every item is written exactly once, in order, whatever the interleaving', async () => {
    const { batcher, writes, complete } = recorded();
    let n = 0;
    for (let round = 0; round < 50; round++) {
      for (let k = round % 4; k >= 0; k--) batcher.push(n++);
      if (round % 3 === 0) complete();
      await turn();
    }
    for (let i = 0; i < 60; i++) {
      complete();
      await turn();
    }
    expect(writes.flat()).toEqual(Array.from({ length: n }, (_, i) => i));
    expect(writes.length).toBeLessThan(n);
  });

  it('cuts a batch into messages of at most maxBytes, an oversized item alone, and waits for the last one', async () => {
    const { batcher, writes, complete } = recorded();
    for (const n of [40, 50, 20, 90, 250, 10, 10]) batcher.push(n);
    await turn();
    expect(writes).toEqual([[40, 50], [20], [90], [250], [10, 10]]);
    batcher.push(5);
    await turn();
    // The first four messages were only handed over: the next batch waits for the last one.
    complete();
    complete();
    complete();
    complete();
    await turn();
    expect(writes).toHaveLength(5);
    complete();
    await turn();
    expect(writes.at(-1)).toEqual([5]);
  });
});
