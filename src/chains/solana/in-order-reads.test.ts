import { InOrderReads } from './in-order-reads';

describe('InOrderReads', () => {
  it('keeps up to `width` reads in flight and hands results out in key order, however they finish', async () => {
    let inFlight = 0;
    let most = 0;
    const finish = new Map<number, () => void>();
    const reads = new InOrderReads(
      [1, 2, 3, 4, 5],
      (k) =>
        new Promise<number>((resolve) => {
          inFlight += 1;
          most = Math.max(most, inFlight);
          finish.set(k, () => {
            inFlight -= 1;
            resolve(k * 10);
          });
        }),
      3,
    );
    const first = reads.next();
    expect([...finish.keys()]).toEqual([1, 2, 3]);
    finish.get(3)!(); // the third finishes first
    finish.get(2)!();
    finish.get(1)!();
    await expect(first).resolves.toBe(10);
    const second = reads.next();
    expect([...finish.keys()]).toEqual([1, 2, 3, 4]);
    await expect(second).resolves.toBe(20);
    await expect(reads.next()).resolves.toBe(30);
    const fourth = reads.next();
    finish.get(5)!();
    finish.get(4)!();
    await expect(fourth).resolves.toBe(40);
    await expect(reads.next()).resolves.toBe(50);
    expect(most).toBe(3);
    await expect(reads.next()).rejects.toThrow(RangeError);
  });

  it('a failed read is thrown at its turn, after the results before it; one left behind is no unhandled rejection', async () => {
    const reads = new InOrderReads([1, 2, 3], (k) => (k === 2 ? Promise.reject(new Error('boom 2')) : k === 3 ? Promise.reject(new Error('boom 3')) : Promise.resolve(k)), 4);
    await expect(reads.next()).resolves.toBe(1);
    await expect(reads.next()).rejects.toThrow('boom 2');
    // The consumer stops here: read 3's rejection is never awaited and must not crash the process.
    await new Promise((r) => setImmediate(r));
  });
});
