import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RateLimitProxy {
  /** The JSON-RPC URL to give the adapter (same path as the upstream's). */
  readonly url: string;
  /** Calls answered (forwarded upstream), by method. */
  readonly served: Map<string, number>;
  /** Calls refused with 429 because they came above the rate. */
  refused(): number;
  /** The most calls that arrived within any `windowMs` (served or refused): what the client asked of the provider. */
  peak(): number;
  /** Every arrival time (ms since the proxy started) and method, for per-minute figures. */
  readonly arrivals: Array<{ readonly at: number; readonly method: string; readonly address: string | null }>;
  /** Now on the arrivals' clock (ms since the proxy started). */
  elapsed(): number;
  /** Changes the rate (calls per window). */
  setRate(rps: number): void;
  close(): Promise<void>;
}

/**
 * toncenter's rate limit in front of the harness: at most `rps` calls in any window of `windowMs`
 * (1 s), counted on arrival; a call above it is answered 429 with toncenter's body, without reaching
 * the node. Counts what the client asked, so a test can say it never went above its budget.
 */
export async function startRateLimitProxy(upstreamUrl: string, rps: number, windowMs = 1000): Promise<RateLimitProxy> {
  const upstream = new URL(upstreamUrl);
  const served = new Map<string, number>();
  const arrivals: Array<{ at: number; method: string; address: string | null }> = [];
  const accepted: number[] = [];
  const state = { rps, refused: 0, peak: 0 };
  const t0 = Date.now();
  const server = http.createServer((req, res) => {
    const now = Date.now();
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', () => {
      let method = '?';
      let address: string | null = null;
      try {
        const body = JSON.parse(raw) as { method?: unknown; params?: { address?: unknown } };
        method = String(body.method);
        address = typeof body.params?.address === 'string' ? body.params.address : null;
      } catch {
        // forwarded as is: the upstream answers a malformed body
      }
      arrivals.push({ at: now - t0, method, address });
      state.peak = Math.max(state.peak, arrivals.filter((a) => a.at > now - t0 - windowMs).length);
      while (accepted.length > 0 && now - accepted[0]! >= windowMs) accepted.shift();
      if (accepted.length >= state.rps) {
        state.refused += 1;
        res.writeHead(429, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error: 'Ratelimit exceed', code: 429 }));
        return;
      }
      accepted.push(now);
      served.set(method, (served.get(method) ?? 0) + 1);
      const forward = http.request(
        { host: upstream.hostname, port: upstream.port, path: upstream.pathname, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(raw) } },
        (up) => {
          res.writeHead(up.statusCode ?? 502, { 'content-type': up.headers['content-type'] ?? 'application/json' });
          up.pipe(res);
        },
      );
      forward.on('error', () => {
        res.writeHead(502, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: false, error: 'upstream unreachable', code: 502 }));
      });
      forward.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${upstream.pathname}`,
    served,
    refused: () => state.refused,
    peak: () => state.peak,
    arrivals,
    elapsed: () => Date.now() - t0,
    setRate: (next) => {
      state.rps = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
