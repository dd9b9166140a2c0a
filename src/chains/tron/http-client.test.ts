import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { TronNodeResponseError, TronRateLimitedError } from './errors';
import { parseRetryAfter, TronHttpClient } from './http-client';

/** A node that answers each request with the next scripted reply. */
async function scripted(
  replies: Array<{ status: number; headers?: Record<string, string>; body?: string }>,
): Promise<{ url: string; seen: Array<{ at: number; key: string | undefined }>; close(): Promise<void> }> {
  const seen: Array<{ at: number; key: string | undefined }> = [];
  const server = http.createServer((req, res) => {
    seen.push({ at: Date.now(), key: req.headers['tron-pro-api-key'] as string | undefined });
    const r = replies.shift() ?? { status: 200, body: '{}' };
    res.writeHead(r.status, { 'content-type': 'application/json', ...r.headers });
    res.end(r.body ?? '{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

describe('TronHttpClient', () => {
  it('429 with Retry-After: waits as told, then succeeds; the API key header goes with every request', async () => {
    const node = await scripted([{ status: 429, headers: { 'retry-after': '1' } }, { status: 503 }, { status: 200, body: '{"ok":1}' }]);
    const outcomes: boolean[] = [];
    const client = new TronHttpClient({ baseUrl: node.url, apiKey: 'k1', backoff: { initialMs: 10, maxMs: 20 }, onRequest: (_p, _ms, ok) => void outcomes.push(ok) });
    await expect(client.post('wallet/getnowblock')).resolves.toEqual({ ok: 1 });
    expect(node.seen[1]!.at - node.seen[0]!.at).toBeGreaterThanOrEqual(950);
    expect(node.seen.map((s) => s.key)).toEqual(['k1', 'k1', 'k1']);
    expect(outcomes).toEqual([false, false, true]);
    await node.close();
  });

  it('still limited after its retries: TronRateLimitedError (the follower backs off and retries); a 400 is not retried', async () => {
    const node = await scripted([{ status: 429 }, { status: 429 }, { status: 400, body: 'bad' }]);
    const client = new TronHttpClient({ baseUrl: node.url, retries: 1, backoff: { initialMs: 1, maxMs: 1 } });
    await expect(client.post('wallet/getnowblock')).rejects.toMatchObject({ name: 'TronRateLimitedError', retryable: true, code: 'rpc_rate_limited' });
    await expect(client.post('wallet/getnowblock')).rejects.toBeInstanceOf(TronNodeResponseError);
    expect(node.seen).toHaveLength(3);
    await node.close();
  });

  it("TronGrid's 403 with a frequency-limit JSON body is a rate limit: every call waits out the suspension, then it goes on; a 403 for a bad key is not retried", async () => {
    const suspended = JSON.stringify({ Error: 'The key exceeds the frequency limit(15), and the query server is suspended for 30s' });
    const node = await scripted([
      { status: 403, body: suspended },
      { status: 200, body: '{"a":1}' },
      { status: 200, body: '{"b":1}' },
      { status: 403, body: '{"Error":"ApiKey not exists"}' },
    ]);
    const client = new TronHttpClient({ baseUrl: node.url, apiKey: 'k', suspensionMs: 400, backoff: { initialMs: 1, maxMs: 1 } });
    const [a, b] = await Promise.all([client.post('wallet/getnowblock'), client.post('wallet/getnowblock')]);
    expect([a, b]).toEqual(expect.arrayContaining([{ a: 1 }, { b: 1 }]));
    // Both later calls waited for the suspension to end, not only the refused one.
    expect(node.seen[1]!.at - node.seen[0]!.at).toBeGreaterThanOrEqual(380);
    expect(node.seen[2]!.at - node.seen[0]!.at).toBeGreaterThanOrEqual(380);
    await expect(client.post('wallet/getnowblock')).rejects.toBeInstanceOf(TronNodeResponseError);
    await expect(new TronHttpClient({ baseUrl: node.url, retries: 0 }).post('x')).resolves.toEqual({});
    await node.close();
  });

  it('a 503 is a rate limit too; after the retries the caller gets TronRateLimitedError', async () => {
    const node = await scripted([{ status: 503 }, { status: 503 }]);
    const client = new TronHttpClient({ baseUrl: node.url, retries: 1, backoff: { initialMs: 1, maxMs: 1 } });
    await expect(client.post('wallet/getnowblock')).rejects.toBeInstanceOf(TronRateLimitedError);
    await node.close();
  });

  it('parses Retry-After as seconds or an HTTP date, capped', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(new Date(10_000).toUTCString(), 7_000)).toBe(3000);
    expect(parseRetryAfter('3600')).toBe(60_000);
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
  });
});
