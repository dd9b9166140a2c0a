import { MAX_PAUSE_MS, RefillPace } from './refill-pace';

/** A clock moved by hand; records what the pace asked for. */
function fakeIo() {
  let now = 1000;
  const calls: string[] = [];
  return {
    calls,
    derive: (ms: number) => void (now += ms),
    io: {
      now: () => now,
      sleep: async (ms: number) => {
        calls.push(`sleep ${ms}`);
        now += ms;
      },
      yieldTurn: async () => void calls.push('yield'),
    },
  };
}

describe('RefillPace', () => {
  it('not urgent: after each address it waits as long as the derivation took (about half of the event loop)', async () => {
    const f = fakeIo();
    const pace = new RefillPace(() => false, f.io);
    f.derive(3);
    await pace.afterAddress();
    f.derive(1);
    await pace.afterAddress();
    // The wait itself is not counted as derivation time.
    expect(f.calls).toEqual(['sleep 3', 'sleep 1']);
  });

  it('a long gap between two addresses (the chunk insert and the next read) pauses at most MAX_PAUSE_MS', async () => {
    const f = fakeIo();
    const pace = new RefillPace(() => false, f.io);
    f.derive(40);
    await pace.afterAddress();
    expect(f.calls).toEqual([`sleep ${MAX_PAUSE_MS}`]);
  });

  it('urgent (pool nearly empty, a caller waiting): one event-loop turn per address, no wait; urgency is read per address', async () => {
    const f = fakeIo();
    let urgent = true;
    const pace = new RefillPace(() => urgent, f.io);
    f.derive(3);
    await pace.afterAddress();
    urgent = false;
    f.derive(2);
    await pace.afterAddress();
    urgent = true;
    f.derive(2);
    await pace.afterAddress();
    expect(f.calls).toEqual(['yield', 'sleep 2', 'yield']);
  });
});
