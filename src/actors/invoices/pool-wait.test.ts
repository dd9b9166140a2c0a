import { PoolEmptyError, PoolExhaustedError, withPoolWait } from './pool-wait';

describe('withPoolWait', () => {
  it('waits for a refill and retries until an address comes; the wait is reported', async () => {
    let free = 0;
    const waits: [string, boolean][] = [];
    const refills: string[] = [];
    const got = await withPoolWait(
      'POLYGON',
      { refillNow: async (n) => void (refills.push(n), (free = refills.length >= 2 ? 1 : 0)), waitMs: 2_000, observer: { waited: (n, _ms, ok) => waits.push([n, ok]) } },
      async () => {
        if (free === 0) throw new PoolEmptyError('POLYGON');
        return 'addr';
      },
    );
    expect(got).toBe('addr');
    expect(refills).toEqual(['POLYGON', 'POLYGON']);
    expect(waits).toEqual([['POLYGON', true]]);
  });

  it('past the bounded wait: PoolExhaustedError (503 pool_exhausted, Retry-After) and the attempt is not run again', async () => {
    let tries = 0;
    const waits: boolean[] = [];
    const started = Date.now();
    const err = await withPoolWait('BEP20', { refillNow: async () => undefined, waitMs: 300, observer: { waited: (_n, _ms, ok) => waits.push(ok) } }, async () => {
      tries++;
      throw new PoolEmptyError('BEP20');
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PoolExhaustedError);
    expect(err).toMatchObject({ kind: 'unavailable', code: 'pool_exhausted', details: { network: 'BEP20', retry_after_seconds: 5 } });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(tries).toBeGreaterThan(1);
    expect(waits).toEqual([false]);
  });

  it('other errors pass through at once, no wait', async () => {
    const boom = new Error('boom');
    await expect(withPoolWait('TRC20', { refillNow: async () => undefined, waitMs: 5_000 }, async () => Promise.reject(boom))).rejects.toBe(boom);
  });
});
