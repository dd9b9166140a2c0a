import { CallBudget } from './call-budget';

describe('CallBudget', () => {
  it('starts a call only a window after the answer of the call whose slot it takes, in the order asked', async () => {
    const budget = new CallBudget(2, 100);
    const calls: Array<{ i: number; start: number; end: number }> = [];
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const done = await budget.take();
        const start = Date.now();
        await new Promise((r) => setTimeout(r, 30)); // the call's own latency
        done();
        calls.push({ i, start, end: Date.now() });
      }),
    );
    const byStart = [...calls].sort((a, b) => a.start - b.start);
    expect(byStart.map((c) => c.i)).toEqual([0, 1, 2, 3, 4, 5]);
    // Never more than 2 in any window counted from an answer: call k+2 starts >= 100 ms after call k ended.
    for (let k = 0; k + 2 < byStart.length; k++) expect(byStart[k + 2]!.start - byStart[k]!.end).toBeGreaterThanOrEqual(99);
  });

  it('refuses a budget that is not a positive integer', () => {
    expect(() => new CallBudget(0)).toThrow(RangeError);
    expect(() => new CallBudget(1.5)).toThrow(RangeError);
  });
});
