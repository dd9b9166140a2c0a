import { ConnectionException, UniqueConstraintViolationException } from '@mikro-orm/core';
import { TonHistoryGapError } from '../ton/errors';
import { TonRateLimitedError } from '../ton/provider-errors';
import { MalformedBlockError } from '../solana/errors';
import { TronRateLimitedError } from '../tron/errors';
import { ReorgBeyondFinalityError, RpcTimeoutError, RpcTransientError } from './errors';
import { isRetryable } from './retry-rule';
import { RunLoop } from './run-loop';

async function until(cond: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** A loop whose step throws the given errors in turn, then completes (idle) for ever. */
function scripted(errors: ReadonlyArray<Error | null>): { loop: RunLoop; delays: number[]; seen: Error[]; calls: () => number } {
  const delays: number[] = [];
  const seen: Error[] = [];
  let calls = 0;
  const loop = new RunLoop({
    step: async () => {
      const err = errors[calls++];
      if (err) throw err;
      return true;
    },
    idle: () => new Promise((r) => setTimeout(r, 1)),
    backoff: { initialMs: 4, maxMs: 16 },
    random: () => 1, // no jitter: the delays are the exponential ones
    onError: (e) => seen.push(e),
    onRetry: (_e, delay) => delays.push(delay),
  });
  return { loop, delays, seen, calls: () => calls };
}

describe('RunLoop: one retry rule for every chain watch', () => {
  it('retries each retryable class with growing backoff, resets it after a completed step, and counts them', async () => {
    const retryable = [
      new RpcTransientError('node down'),
      new RpcTimeoutError('slow', 10),
      new TronRateLimitedError('/wallet/getnowblock', 429, 3),
      new TonRateLimitedError('getAddressInformation', 4, null),
      new MalformedBlockError('no blockhash', { slot: 7 }),
      new ConnectionException(Object.assign(new Error('terminated'), { code: '08006' })),
    ];
    const again = new RpcTransientError('node down again');
    const { loop, delays, seen, calls } = scripted([...retryable, null, again]);
    await until(() => loop.stats().steps >= 3);
    await loop.stop();
    expect(seen).toEqual([...retryable, again]);
    // 4, 8, 16 (capped), 16, 16, 16: the backoff grows with consecutive failures up to maxMs; a
    // completed step resets it (4 again).
    expect(delays).toEqual([4, 8, 16, 16, 16, 16, 4]);
    const stats = loop.stats();
    expect(stats).toMatchObject({ state: 'stopped', retries: 7, consecutiveFailures: 0 });
    expect(stats.errors).toEqual({
      RpcTransientError: 2,
      RpcTimeoutError: 1,
      TronRateLimitedError: 1,
      TonRateLimitedError: 1,
      MalformedBlockError: 1,
      ConnectionException: 1,
    });
    expect(calls()).toBeGreaterThanOrEqual(10);
  });

  it.each([
    ['a reorg beyond finality', new ReorgBeyondFinalityError('POLYGON', { finalizedHeight: 5, finalizedHash: '0x5', tipHeight: 9 })],
    ['a TON history gap (not an archival node)', new TonHistoryGapError('100', '50')],
    ['an unmapped error (a parsing bug)', new TypeError("Cannot read properties of undefined (reading 'lt')")],
    ['a wrong statement of the sink', new UniqueConstraintViolationException(Object.assign(new Error('dup'), { code: '23505' }))],
  ])('stops on %s: no retry, state failed, the error passed on once', async (_what, fatal) => {
    const { loop, delays, seen, calls } = scripted([new RpcTransientError('blip'), fatal]);
    await until(() => loop.stats().state === 'failed');
    await new Promise((r) => setTimeout(r, 30));
    expect(calls()).toBe(2); // never stepped again
    expect(delays).toEqual([4]); // only the retryable one backed off
    expect(seen).toEqual([expect.any(RpcTransientError), fatal]);
    expect(isRetryable(fatal)).toBe(false);
    expect(loop.stats()).toMatchObject({ state: 'failed', retries: 1, consecutiveFailures: 2, lastError: { name: fatal.name } });
    await loop.stop();
    expect(loop.stats().state).toBe('failed');
  });

  it('never decides by message text: the same words in an unmapped error are fatal', () => {
    expect(isRetryable(new RpcTransientError('rate limited, try again'))).toBe(true);
    expect(isRetryable(new Error('rate limited, try again'))).toBe(false);
    expect(isRetryable(new Error('ECONNRESET'))).toBe(false);
  });

  it('an error thrown while stopping is not a failure', async () => {
    let release: (() => void) | undefined;
    const loop = new RunLoop({
      step: (signal) =>
        new Promise<boolean>((_resolve, reject) => {
          release = () => reject(new TypeError('aborted mid-step'));
          signal.addEventListener('abort', () => release?.());
        }),
      idle: () => Promise.resolve(),
      backoff: { initialMs: 1, maxMs: 1 },
    });
    await until(() => release !== undefined);
    await loop.stop();
    expect(loop.stats()).toMatchObject({ state: 'stopped', errors: {}, consecutiveFailures: 0 });
  });
});
