import { KeyedBatches, type BatchOutcome } from './keyed-batches';

const tick = () => new Promise((r) => setImmediate(r));

describe('KeyedBatches', () => {
  it('runs one batch per key at a time and puts what arrived meanwhile in the next batch', async () => {
    const seen: string[][] = [];
    let release: () => void = () => undefined;
    const runner = async (key: string, inputs: readonly number[]): Promise<BatchOutcome<string>[]> => {
      seen.push(inputs.map((i) => `${key}${i}`));
      if (seen.length === 1) await new Promise<void>((r) => (release = r));
      return inputs.map((i) => ({ ok: true, value: `${key}${i}` }));
    };
    const batches = new KeyedBatches(runner, 3);
    const first = batches.submit('a', 1);
    await tick();
    const rest = [2, 3, 4, 5].map((i) => batches.submit('a', i));
    const other = batches.submit('b', 9);
    await tick();
    expect(seen).toEqual([['a1'], ['b9']]);
    release();
    expect(await Promise.all([first, ...rest, other])).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'b9']);
    expect(seen).toEqual([['a1'], ['b9'], ['a2', 'a3', 'a4'], ['a5']]);
    expect(batches.activeKeys).toBe(0);
  });

  it('inputs that arrive in the same event-loop turn, microtasks apart, make one batch', async () => {
    const seen: number[][] = [];
    const batches = new KeyedBatches(async (_key: string, inputs: readonly number[]): Promise<BatchOutcome<number>[]> => {
      seen.push([...inputs]);
      return inputs.map((i) => ({ ok: true, value: i }));
    }, 10);
    const later = async (i: number): Promise<number> => {
      for (let k = 0; k < i; k++) await Promise.resolve(); // as after an awaited cache hit
      return batches.submit('m', i);
    };
    expect(await Promise.all([1, 2, 3, 4, 5].map(later))).toEqual([1, 2, 3, 4, 5]);
    expect(seen).toEqual([[1, 2, 3, 4, 5]]);
  });

  it('gives each input its own outcome, and a failed batch fails only its own inputs', async () => {
    const runner = async (_key: string, inputs: readonly number[]): Promise<BatchOutcome<number>[]> => {
      if (inputs.includes(13)) throw new Error('batch failed');
      return inputs.map((i) => (i % 2 ? { ok: true, value: i * 10 } : { ok: false, error: new Error(`even ${i}`) }));
    };
    const batches = new KeyedBatches(runner, 10);
    const results = await Promise.allSettled([batches.submit('k', 1), batches.submit('k', 2), batches.submit('k', 3)]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : (r.reason as Error).message))).toEqual([10, 'even 2', 30]);
    await expect(batches.submit('k', 13)).rejects.toThrow('batch failed');
    await expect(batches.submit('k', 5)).resolves.toBe(50);
  });
});
