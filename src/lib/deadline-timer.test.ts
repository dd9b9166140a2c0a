import { DeadlineTimer, type DeadlineClock } from './deadline-timer';

/** A clock the test moves by hand; it records every timer armed and fires the ones due. */
function manualClock() {
  let now = 1_000_000;
  let timers: { at: number; fire: () => void; live: boolean }[] = [];
  const armed: number[] = [];
  const clock: DeadlineClock = {
    now: () => now,
    arm(fire, ms) {
      armed.push(ms);
      const t = { at: now + ms, fire, live: true };
      timers.push(t);
      return () => {
        t.live = false;
      };
    },
  };
  const advance = (ms: number): void => {
    const until = now + ms;
    for (;;) {
      const due = timers.filter((t) => t.live && t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) break;
      now = due.at;
      due.live = false;
      due.fire();
    }
    now = until;
    timers = timers.filter((t) => t.live);
  };
  return { clock, advance, armed, now: () => now, live: () => timers.filter((t) => t.live).length };
}

/** An owner as the relay's two ends are: items with deadlines, swept by the timer. */
function owner(c: ReturnType<typeof manualClock>) {
  const items = new Map<string, number>();
  const expired: { name: string; at: number }[] = [];
  const timer = new DeadlineTimer((now) => {
    let next = Infinity;
    for (const [name, deadline] of items) {
      if (deadline <= now) {
        items.delete(name);
        expired.push({ name, at: now });
      } else if (deadline < next) next = deadline;
    }
    return next;
  }, c.clock);
  const add = (name: string, inMs: number): void => {
    const deadline = c.now() + inMs;
    items.set(name, deadline);
    timer.watch(deadline);
  };
  return { items, expired, timer, add, names: () => expired.map((e) => e.name) };
}

describe('DeadlineTimer', () => {
  it('sweeps an item at its deadline and not before', () => {
    const c = manualClock();
    const o = owner(c);
    o.add('a', 100);
    c.advance(99);
    expect(o.names()).toEqual([]);
    c.advance(1);
    expect(o.expired).toEqual([{ name: 'a', at: c.now() }]);
  });

  it('one timer for many items with the same timeout arriving in order; items that ended are not swept', () => {
    const c = manualClock();
    const o = owner(c);
    for (let i = 0; i < 1000; i++) {
      o.add(`c${i}`, 15_000);
      c.advance(1);
    }
    expect(c.armed).toEqual([15_000]);
    for (let i = 0; i < 998; i++) o.items.delete(`c${i}`); // answered in time
    c.advance(15_000 - 1000);
    // Fired once with nothing due, and armed again for the earliest left (c998).
    expect([o.names(), c.armed]).toEqual([[], [15_000, 998]]);
    c.advance(998);
    expect(o.names()).toEqual(['c998']);
    c.advance(1);
    expect(o.names()).toEqual(['c998', 'c999']);
    expect(c.live()).toBe(0);
  });

  it('an earlier deadline than the armed one re-arms the timer for it', () => {
    const c = manualClock();
    const o = owner(c);
    o.add('long', 15_000);
    o.add('short', 300);
    expect([c.armed, c.live()]).toEqual([[15_000, 300], 1]);
    c.advance(300);
    expect(o.names()).toEqual(['short']);
    c.advance(14_699);
    expect(o.names()).toEqual(['short']);
    c.advance(1);
    expect(o.names()).toEqual(['short', 'long']);
  });

  it('an infinite deadline arms nothing; stop() disarms', () => {
    const c = manualClock();
    const o = owner(c);
    o.timer.watch(Infinity);
    expect(c.armed).toEqual([]);
    o.add('a', 100);
    o.timer.stop();
    c.advance(1_000);
    expect([o.names(), c.live()]).toEqual([[], 0]);
    // Watching again after stop() arms again.
    o.timer.watch(c.now() + 50);
    c.advance(50);
    expect(o.names()).toEqual(['a']);
  });

  it('items due together are swept together; deadlines watched during a sweep are kept', () => {
    const c = manualClock();
    const items = new Map<string, number>([]);
    const swept: string[] = [];
    const timer: DeadlineTimer = new DeadlineTimer((now) => {
      let next = Infinity;
      for (const [name, deadline] of items) {
        if (deadline > now) {
          next = Math.min(next, deadline);
          continue;
        }
        items.delete(name);
        swept.push(name);
        if (name === 'a') {
          items.set('added', now + 50);
          timer.watch(now + 50);
        }
      }
      return next;
    }, c.clock);
    for (const [name, ms] of [
      ['a', 100],
      ['b', 100],
      ['c', 500],
    ] as const) {
      items.set(name, c.now() + ms);
      timer.watch(c.now() + ms);
    }
    c.advance(100);
    expect(swept).toEqual(['a', 'b']);
    c.advance(50);
    expect(swept).toEqual(['a', 'b', 'added']);
    c.advance(350);
    expect(swept).toEqual(['a', 'b', 'added', 'c']);
  });

  it('with the system clock, the sweep comes after the deadline', async () => {
    const swept: number[] = [];
    const deadline = Date.now() + 30;
    const timer = new DeadlineTimer((now) => {
      if (now >= deadline) {
        swept.push(now);
        return Infinity;
      }
      return deadline;
    });
    timer.watch(deadline);
    await new Promise((r) => setTimeout(r, 100));
    expect(swept).toHaveLength(1);
    expect(swept[0]!).toBeGreaterThanOrEqual(deadline);
  });
});
