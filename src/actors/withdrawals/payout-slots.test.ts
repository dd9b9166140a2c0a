import { PayoutSlots } from './payout-slots';
import { RequestLoad } from '../../lib/request-load';

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

describe('PayoutSlots with RequestLoad', () => {
  it('runs one step at a time while a request is in flight, and widens to the limit when the last one is done', async () => {
    const load = new RequestLoad();
    const slots = new PayoutSlots(4, load);
    let running = 0;
    let peak = 0;
    const releases: (() => void)[] = [];
    const step = () =>
      slots.run(async () => {
        running++;
        peak = Math.max(peak, running);
        await new Promise<void>((r) => releases.push(r));
        running--;
      });
    let endRequest!: () => void;
    const request = load.around(() => new Promise<void>((r) => (endRequest = r)));
    const steps = Array.from({ length: 6 }, step);
    await flush();
    expect(running).toBe(1);
    expect(slots.queued).toBe(5);
    releases.shift()!();
    await flush();
    expect(running).toBe(1);
    expect(peak).toBe(1);
    endRequest();
    await request;
    await flush();
    expect(running).toBe(4);
    expect(slots.queued).toBe(1);
    while (releases.length > 0) {
      releases.shift()!();
      await flush();
    }
    await Promise.all(steps);
    expect(peak).toBe(4);
    expect(slots.queued).toBe(0);
  });

  it('steps already running when requests arrive finish; the next starts only when one slot is left', async () => {
    const load = new RequestLoad();
    const slots = new PayoutSlots(3, load);
    const releases: (() => void)[] = [];
    const started: number[] = [];
    const steps = Array.from({ length: 4 }, (_, i) => slots.run(() => new Promise<void>((r) => (started.push(i), releases.push(r)))));
    await flush();
    expect(started).toEqual([0, 1, 2]);
    let endRequest!: () => void;
    const request = load.around(() => new Promise<void>((r) => (endRequest = r)));
    releases.shift()!(); // 3 -> 2 running, above the allowance of 1: the slot is freed, step 3 waits
    await flush();
    expect(started).toEqual([0, 1, 2]);
    releases.shift()!(); // 2 -> 1 running: freed again, step 3 still waits
    await flush();
    expect(started).toEqual([0, 1, 2]);
    releases.shift()!(); // the last of the three: its slot, the one allowed, passes to step 3
    await flush();
    expect(started).toEqual([0, 1, 2, 3]);
    endRequest();
    await request;
    releases.shift()!();
    await Promise.all(steps);
  });
});

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}
