import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TronHttpClient } from './http-client';
import { TokenBucket } from './token-bucket';

/** The most request starts in any one-second window (sliding, half-open). */
function busiestSecond(starts: readonly number[]): number {
  let best = 0;
  for (let i = 0; i < starts.length; i++) {
    let n = 0;
    for (let j = i; j < starts.length && starts[j]! < starts[i]! + 1000; j++) n++;
    best = Math.max(best, n);
  }
  return best;
}

describe('TokenBucket (TRC20_RPS)', () => {
  it('spaces starts 1.2/rps apart (SPACING_HEADROOM), in call order; a pause holds back even the calls already waiting, then they go on spaced', async () => {
    const bucket = new TokenBucket(20);
    const t0 = performance.now();
    const released: number[] = [];
    const takes = Array.from({ length: 6 }, () => bucket.take().then(() => released.push(performance.now() - t0)));
    setTimeout(() => bucket.pause(300), 85); // after 2 slots (0, 60 ms): the others wait it out
    await Promise.all(takes);
    expect(released.slice(0, 2).every((ms) => ms < 100)).toBe(true);
    for (const ms of released.slice(2)) expect(ms).toBeGreaterThanOrEqual(380);
    const sorted = [...released].sort((a, b) => a - b);
    for (let i = 1; i < sorted.length; i++) expect(sorted[i]! - sorted[i - 1]!).toBeGreaterThanOrEqual(55);
    expect(() => new TokenBucket(0)).toThrow(RangeError);
  });

  it('a burst of 60 concurrent calls through the client leaves at no more than TRC20_RPS in any second', async () => {
    const starts: number[] = [];
    const server = http.createServer((_req, res) => {
      starts.push(performance.now());
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const client = new TronHttpClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, rps: 20 });
    // When the bucket lets each call go (the node sees them a little later, bunched by the network).
    const sent: number[] = [];
    const take = client.bucket.take.bind(client.bucket);
    client.bucket.take = async (signal) => {
      await take(signal);
      sent.push(performance.now());
    };
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 60 }, () => client.post('wallet/getblockbynum', { num: 1 })));
    const elapsed = performance.now() - t0;
    await new Promise<void>((r) => server.close(() => r()));
    expect(starts).toHaveLength(60);
    expect(busiestSecond(sent)).toBeLessThanOrEqual(20);
    // At the node: the same, give or take the loopback's bunching.
    expect(busiestSecond(starts)).toBeLessThanOrEqual(24);
    // Held to the rate, not slower: 60 calls at 20/s take about 3 s.
    expect(elapsed).toBeGreaterThanOrEqual(2_800);
    expect(elapsed).toBeLessThan(6_000);
  });
});
