import { execFileSync } from 'node:child_process';
import path from 'node:path';
import pino from 'pino';
import { IdleCollector, idleCollector } from './idle-gc';

const MiB = 1024 * 1024;

/** A scripted process: each tick reads the next utilization; collecting drops the heap to `live`. */
function harness(options: { collectMs?: number; maxPauseMs?: number } = {}) {
  const state = { heap: 300 * MiB, live: 250 * MiB, busy: [] as number[], collections: 0, clock: 0 };
  const collector = new IdleCollector({
    collect: () => {
      state.collections++;
      state.heap = state.live;
      state.clock += options.collectMs ?? 200;
    },
    heapUsed: () => state.heap,
    utilization: () => state.busy.shift() ?? 0,
    logger: pino({ level: 'silent' }),
    now: () => state.clock,
    ...(options.maxPauseMs !== undefined ? { maxPauseMs: options.maxPauseMs } : {}),
  });
  return { state, collector };
}

describe('IdleCollector', () => {
  it('collects after three idle periods in a row once the heap grew by 64 MiB, and not again until it grows again', () => {
    const { state, collector } = harness();
    state.heap += 64 * MiB;
    collector.tick();
    collector.tick();
    expect(state.collections).toBe(0);
    collector.tick();
    expect(state.collections).toBe(1);
    expect(state.heap).toBe(250 * MiB);
    for (let i = 0; i < 10; i++) collector.tick();
    expect(state.collections).toBe(1); // idle, but the heap has not grown since
    state.heap += 63 * MiB;
    for (let i = 0; i < 5; i++) collector.tick();
    expect(state.collections).toBe(1);
    state.heap += 1 * MiB;
    for (let i = 0; i < 3; i++) collector.tick();
    expect(state.collections).toBe(2);
    expect(collector.count).toBe(2);
  });

  it('never collects in or right after a busy period: a busy one starts the count again', () => {
    const { state, collector } = harness();
    state.heap += 500 * MiB;
    // Utilization of the periods: idle, idle, busy (3%), idle, idle, then idle.
    state.busy.push(0.01, 0.0, 0.03, 0.0, 0.02);
    for (let i = 0; i < 5; i++) collector.tick();
    expect(state.collections).toBe(0);
    collector.tick();
    expect(state.collections).toBe(1);
  });

  it('turns itself off after a collection that paused longer than maxPauseMs', () => {
    const { state, collector } = harness({ collectMs: 1_500 });
    state.heap += 100 * MiB;
    for (let i = 0; i < 3; i++) collector.tick();
    expect(state.collections).toBe(1);
    expect(collector.enabled).toBe(false);
    state.heap += 500 * MiB;
    for (let i = 0; i < 10; i++) collector.tick();
    expect(state.collections).toBe(1);
  });

  it('is off when V8 does not expose gc (node without --expose-gc, as here)', () => {
    expect(typeof (globalThis as { gc?: unknown }).gc).not.toBe('function');
    expect(idleCollector(pino({ level: 'silent' }))).toBeNull();
  });

  it("in a real process run with --expose-gc (idleCollector: V8's gc, the event-loop utilization): an idle loop gets one collection that frees the garbage", () => {
    // ~200 MiB of garbage made after the collector started, then an idle event loop; periods of 50 ms.
    const script = `
      const { idleCollector } = require(${JSON.stringify(path.join(__dirname, 'idle-gc.ts'))});
      const logs = [];
      const c = idleCollector({ info: (f) => logs.push(f), warn: (f) => logs.push(f) }, { intervalMs: 50, growthBytes: 32 * 1024 * 1024 });
      c.start();
      let keep = []; for (let i = 0; i < 200; i++) keep.push(new Array(128 * 1024).fill(i)); keep = null;
      // A loaded machine can make a period look busy (a tick preempted mid-way counts as busy time),
      // so wait up to 20 s for the first collection, then 10 more periods to see it stays one.
      const report = () => { c.stop(); console.log(JSON.stringify({ count: c.count, logs })); };
      const deadline = Date.now() + 20000;
      const poll = setInterval(() => {
        if (c.count > 0) { clearInterval(poll); setTimeout(report, 500); }
        else if (Date.now() > deadline) { clearInterval(poll); report(); }
      }, 50);`;
    // V8 alone must not collect while the loop idles (it may finish a marking it started while the
    // garbage was made): no incremental marking, no memory reducer in this process.
    const v8Quiet = ['--no-incremental-marking', '--no-memory-reducer'];
    const out = execFileSync(process.execPath, ['--expose-gc', ...v8Quiet, '--require', require.resolve('tsx/cjs'), '-e', script], { encoding: 'utf8' });
    const { count, logs } = JSON.parse(out.trim().split('\n').pop()!) as { count: number; logs: { heapBeforeMiB: number; heapAfterMiB: number }[] };
    expect(count).toBe(1);
    expect(logs[0]!.heapBeforeMiB - logs[0]!.heapAfterMiB).toBeGreaterThan(100);
  }, 40_000);
});
