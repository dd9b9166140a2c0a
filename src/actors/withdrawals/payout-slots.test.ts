import { PayoutSlots } from './payout-slots';

describe('PayoutSlots', () => {
  it('never runs more than the limit at once, runs everything, in arrival order', async () => {
    const slots = new PayoutSlots(3);
    let running = 0;
    let peak = 0;
    const started: number[] = [];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        slots.run(async () => {
          started.push(i);
          running++;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 1 + (i % 4)));
          running--;
          return i * 2;
        }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
    expect(peak).toBe(3);
    expect(started).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(slots.queued).toBe(0);
  });

  it('a failing step frees its slot', async () => {
    const slots = new PayoutSlots(1);
    await expect(slots.run(async () => Promise.reject(new Error('rpc down')))).rejects.toThrow('rpc down');
    await expect(slots.run(async () => 'next')).resolves.toBe('next');
  });

  it('refuses a limit below 1', () => {
    expect(() => new PayoutSlots(0)).toThrow(RangeError);
  });
});
