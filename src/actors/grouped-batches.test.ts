import { GroupedBatches, type KeyGroup } from './grouped-batches';
import type { BatchOutcome } from './keyed-batches';

const tick = () => new Promise((r) => setImmediate(r));
const show = (groups: readonly KeyGroup<number>[]) => groups.map((g) => `${g.key}:${g.inputs.join(',')}`).join(' ');
const echo = (groups: readonly KeyGroup<number>[]): BatchOutcome<string>[][] => groups.map((g) => g.inputs.map((i) => ({ ok: true, value: `${g.key}${i}` })));

describe('GroupedBatches', () => {
  it('runs the keys that arrived in the same turn together, each key in arrival order', async () => {
    const runs: string[] = [];
    const batches = new GroupedBatches(async (groups: readonly KeyGroup<number>[]) => {
      runs.push(show(groups));
      return echo(groups);
    }, 100);
    const results = await Promise.all([batches.submit('a', 1), batches.submit('b', 2), batches.submit('a', 3), batches.submit('c', 4)]);
    expect(results).toEqual(['a1', 'b2', 'a3', 'c4']);
    expect(runs).toEqual(['a:1,3 b:2 c:4']);
    expect(batches.activeKeys).toBe(0);
  });

  it('never puts a key in two runs at once: what arrives for a running key waits for the next run', async () => {
    const runs: string[] = [];
    const releases: (() => void)[] = [];
    const batches = new GroupedBatches(async (groups: readonly KeyGroup<number>[]) => {
      runs.push(show(groups));
      await new Promise<void>((r) => releases.push(r));
      return echo(groups);
    }, 100);
    const first = [batches.submit('a', 1), batches.submit('b', 2)];
    await tick();
    expect(runs).toEqual(['a:1 b:2']);
    // a and b are running: their new inputs wait; c is free and runs at once.
    const second = [batches.submit('a', 3), batches.submit('c', 4), batches.submit('b', 5)];
    await tick();
    expect(runs).toEqual(['a:1 b:2', 'c:4']);
    expect(batches.activeKeys).toBe(3);
    releases[0]!();
    await Promise.all(first);
    await tick();
    expect(runs).toEqual(['a:1 b:2', 'c:4', 'a:3 b:5']);
    releases[1]!();
    releases[2]!();
    expect(await Promise.all(second)).toEqual(['a3', 'c4', 'b5']);
    expect(batches.activeKeys).toBe(0);
  });

  it('splits a turn into runs of at most maxInputs inputs, and a key beyond it over several runs', async () => {
    const runs: string[] = [];
    const batches = new GroupedBatches(async (groups: readonly KeyGroup<number>[]) => {
      runs.push(show(groups));
      return echo(groups);
    }, 3);
    const all = [
      batches.submit('a', 1),
      batches.submit('b', 2),
      batches.submit('b', 3),
      batches.submit('c', 4),
      batches.submit('d', 5),
      batches.submit('d', 6),
      batches.submit('d', 7),
      batches.submit('d', 8),
    ];
    expect(await Promise.all(all)).toEqual(['a1', 'b2', 'b3', 'c4', 'd5', 'd6', 'd7', 'd8']);
    expect(runs).toEqual(['a:1 b:2,3', 'c:4', 'd:5,6,7', 'd:8']);
  });

  it('gives each input its own outcome; a failed run fails only its own inputs and frees its keys', async () => {
    const batches = new GroupedBatches(async (groups: readonly KeyGroup<number>[]): Promise<BatchOutcome<number>[][]> => {
      if (groups.some((g) => g.inputs.includes(13))) throw new Error('run failed');
      return groups.map((g) => g.inputs.map((i) => (i % 2 ? { ok: true, value: i * 10 } : { ok: false, error: new Error(`even ${i}`) })));
    }, 10);
    const results = await Promise.allSettled([batches.submit('k', 1), batches.submit('j', 2), batches.submit('k', 3)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([10, 'even 2', 30]);
    const failed = await Promise.allSettled([batches.submit('k', 13), batches.submit('j', 5)]);
    expect(failed.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value))).toEqual(['run failed', 'run failed']);
    await expect(batches.submit('k', 5)).resolves.toBe(50);
    expect(batches.activeKeys).toBe(0);
  });

  it('an answer missing for an input rejects that input, not the others', async () => {
    const batches = new GroupedBatches(async (groups: readonly KeyGroup<number>[]): Promise<BatchOutcome<number>[][]> => [groups[0]!.inputs.map((i) => ({ ok: true, value: i }))], 10);
    const results = await Promise.allSettled([batches.submit('a', 1), batches.submit('b', 2)]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: 1 });
    expect(results[1]!.status === 'rejected' && (results[1].reason as Error).message).toBe('group runner answered fewer outcomes than inputs');
  });
});
