import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RpcCall {
  readonly method: string;
  readonly params: unknown[];
}

/** A counting JSON-RPC proxy in front of the node: every call the adapter makes is recorded. */
export interface RpcProxy {
  readonly url: string;
  readonly calls: RpcCall[];
  /** Calls per method, e.g. { eth_getLogs: 3, eth_getBlockByNumber: 7 }. */
  counts(): Record<string, number>;
  reset(): void;
  close(): Promise<void>;
}

export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const calls: RpcCall[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const parsed = JSON.parse(body) as { method: string; params?: unknown[] } | Array<{ method: string; params?: unknown[] }>;
        for (const call of Array.isArray(parsed) ? parsed : [parsed]) calls.push({ method: call.method, params: call.params ?? [] });
      } catch {
        // forwarded as is; the node answers the parse error
      }
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
        .then(async (upstream) => {
          res.writeHead(upstream.status, { 'content-type': 'application/json' });
          res.end(await upstream.text());
        })
        .catch(() => {
          res.writeHead(502);
          res.end();
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    counts() {
      const out: Record<string, number> = {};
      for (const c of calls) out[c.method] = (out[c.method] ?? 0) + 1;
      return out;
    },
    reset() {
      calls.length = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
