import { BatchedDestination } from './batched-stdout';

describe('BatchedDestination', () => {
  const line = (n: number) => `${JSON.stringify({ n: String(n).padStart(4, '0'), msg: 'x'.repeat(90) })}\n`; // all of one length

  it('hands the sink whole batches of at least the batch size, every line once and in order', () => {
    const batches: string[] = [];
    const destination = new BatchedDestination({ write: (batch) => batches.push(batch) }, 4096);
    const lines = Array.from({ length: 1000 }, (_, n) => line(n));
    for (const l of lines) destination.write(l);
    // ~100 characters a line: a batch is written with the line that takes it to 4096 characters.
    expect(batches.length).toBe(Math.floor(1000 / Math.ceil(4096 / lines[0]!.length)));
    for (const b of batches) expect(b.length).toBeGreaterThanOrEqual(4096);
    expect(batches.every((b) => b.endsWith('\n'))).toBe(true);
    destination.flushSync();
    expect(batches.join('')).toBe(lines.join(''));
  });

  it('flushSync writes what has gathered, and nothing when nothing has', () => {
    const batches: string[] = [];
    const destination = new BatchedDestination({ write: (batch) => batches.push(batch) }, 4096);
    destination.flushSync();
    expect(batches).toEqual([]);
    destination.write(line(1));
    destination.write(line(2));
    expect(batches).toEqual([]);
    destination.flushSync();
    expect(batches).toEqual([line(1) + line(2)]);
    destination.flushSync();
    expect(batches).toHaveLength(1);
  });

  it('flush(cb) reports a failed write to its callback, and the lines are not written twice', () => {
    const written: string[] = [];
    let fail = true;
    const destination = new BatchedDestination({
      write: (batch) => {
        if (fail) throw new Error('EPIPE');
        written.push(batch);
      },
    });
    destination.write(line(1));
    const errors: Array<Error | undefined> = [];
    destination.flush((err) => errors.push(err));
    expect(errors[0]?.message).toBe('EPIPE');
    fail = false;
    destination.write(line(2));
    destination.flush((err) => errors.push(err));
    expect(errors[1]).toBeUndefined();
    expect(written).toEqual([line(2)]);
  });
});
