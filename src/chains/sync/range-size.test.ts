import { RangeSize } from './range-size';

/** Catch-up against a provider that refuses ranges above `limit()`: each call is a full-size range. */
function drive(size: RangeSize, limit: () => number, calls: number): { refusals: number; sizes: number[] } {
  let refusals = 0;
  const sizes: number[] = [];
  for (let i = 0; i < calls; i++) {
    const n = size.current();
    sizes.push(n);
    if (n > limit()) {
      refusals += 1;
      size.refused(n);
    } else size.succeeded(n);
  }
  return { refusals, sizes };
}

describe('RangeSize (how a refused block range grows back)', () => {
  it('starts at the maximum; a refusal halves it when nothing smaller is known to work', () => {
    const size = new RangeSize(500);
    expect(size.current()).toBe(500);
    size.refused(500);
    expect(size.current()).toBe(250);
    size.refused(250);
    expect(size.current()).toBe(125);
  });

  it('settles at a hard provider limit with a few refusals, then stays there', () => {
    const size = new RangeSize(500, { growAfter: 4, forgetAfter: 1000, timeoutsAsRefusal: 3 });
    const { refusals, sizes } = drive(size, () => 300, 200);
    expect(size.current()).toBe(300);
    expect(refusals).toBeLessThanOrEqual(8);
    // Once settled, no further refusals: the last 100 calls all used 300 blocks.
    expect(sizes.slice(-100).every((n) => n === 300)).toBe(true);
  });

  it('grows back to the maximum once the limit is lifted (the refused size is forgotten after forgetAfter successes)', () => {
    let limit = 20;
    const size = new RangeSize(64, { growAfter: 2, forgetAfter: 8, timeoutsAsRefusal: 3 });
    drive(size, () => limit, 40);
    expect(size.current()).toBe(20);
    limit = Number.POSITIVE_INFINITY;
    const { refusals } = drive(size, () => limit, 20);
    expect(refusals).toBe(0);
    expect(size.current()).toBe(64);
  });

  it('a refusal for too many results (the same size worked before) drops below that size, then grows back', () => {
    const size = new RangeSize(100, { growAfter: 2, forgetAfter: 4, timeoutsAsRefusal: 3 });
    size.succeeded(100);
    size.refused(100);
    expect(size.current()).toBe(50);
    for (let i = 0; i < 12; i++) size.succeeded(size.current());
    expect(size.current()).toBe(100);
  });

  it('a range shorter than the size (at the head) changes nothing', () => {
    const size = new RangeSize(64, { growAfter: 1, forgetAfter: 1, timeoutsAsRefusal: 3 });
    size.refused(64);
    for (let i = 0; i < 10; i++) size.succeeded(3);
    expect(size.current()).toBe(32);
    size.succeeded(32);
    expect(size.current()).toBe(64);
  });

  it('a timeout is retried on the same size; only repeated timeouts of a range narrow it; one block never', () => {
    const size = new RangeSize(500);
    size.timedOut(500);
    size.timedOut(500);
    expect(size.current()).toBe(500);
    size.succeeded(500); // a success in between: the count starts again
    size.timedOut(500);
    size.timedOut(500);
    expect(size.current()).toBe(500);
    size.timedOut(500);
    expect(size.current()).toBe(250);
    for (let i = 0; i < 5; i++) size.timedOut(1);
    expect(size.current()).toBe(250);
  });
});
