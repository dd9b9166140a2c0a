import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A JSON-RPC proxy in front of a node that can misbehave on command, as public RPC providers do:
 * - 'timeout': takes the request and never answers;
 * - '429': answers 429 Too Many Requests with Retry-After: 1;
 * - 'garbage': answers 200 with a body that is not JSON-RPC (HTML, truncated JSON, wrong ids);
 * - 'ok': forwards to the node.
 */
export type FaultMode = 'ok' | 'timeout' | '429' | 'garbage';

export interface FaultyRpc {
  readonly url: string;
  mode: FaultMode;
  /** Requests answered with a fault so far. */
  readonly faulted: number;
  close(): Promise<void>;
}

const GARBAGE = ['<html><body>502 Bad Gateway</body></html>', '{"jsonrpc":"2.0","id":', '{"jsonrpc":"2.0","id":999999,"result":"0x1"}', '', 'null', '{"result":{"number":"banana"}}'];

export async function startFaultyRpc(target: string): Promise<FaultyRpc> {
  let faulted = 0;
  let garbage = 0;
  const hanging = new Set<http.ServerResponse>();
  const proxy: { mode: FaultMode } = { mode: 'ok' };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const mode = proxy.mode;
      if (mode !== 'ok') faulted++;
      if (mode === 'timeout') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      if (mode === '429') {
        res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32005,"message":"rate limited"},"id":null}');
        return;
      }
      if (mode === 'garbage') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(GARBAGE[garbage++ % GARBAGE.length]);
        return;
      }
      fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.concat(chunks) })
        .then(async (upstream) => res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(await upstream.text()))
        .catch(() => res.writeHead(502).end());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get mode() {
      return proxy.mode;
    },
    set mode(m: FaultMode) {
      proxy.mode = m;
      if (m !== 'timeout') for (const res of hanging) res.destroy();
    },
    get faulted() {
      return faulted;
    },
    close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
