import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { BlockThread } from './block-thread';
import { MalformedBlockError } from './errors';
import { JsonRpcError, JsonRpcTransportError } from './json-rpc';

const MINT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY2ndRqUqgfYh9p';

/** A JSON-RPC endpoint answering getBlock by slot: 1 a block, 2 -32007, 3 HTTP 429, 4 a block without parentSlot. */
async function provider(): Promise<{ url: string; close(): Promise<void> }> {
  const block = { blockhash: 'B1ockhash1111111111111111111111111111111111', previousBlockhash: 'P1ockhash1111111111111111111111111111111111', parentSlot: 0, blockTime: null, transactions: [] };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const { id, params } = JSON.parse(body) as { id: number; params: [number] };
      const slot = params[0];
      if (slot === 3) return void res.writeHead(429).end('{"error":"slow down"}');
      res.writeHead(200, { 'content-type': 'application/json' });
      if (slot === 2) return void res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32007, message: 'Slot 2 was skipped' } }));
      res.end(JSON.stringify({ jsonrpc: '2.0', id, result: slot === 4 ? { ...block, parentSlot: undefined } : block }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('BlockThread', () => {
  it('reads a block on its thread; its failures come back as the classes they were thrown as; closed, it refuses', async () => {
    const p = await provider();
    const thread = new BlockThread({ url: p.url, mint: MINT, timeoutMs: 5000 });
    try {
      const [ok, skipped, limited, malformed] = await Promise.allSettled([1, 2, 3, 4].map((slot) => thread.fetch(slot)));
      expect(ok).toEqual({ status: 'fulfilled', value: expect.objectContaining({ parentSlot: 0, transactionCount: 0, mintTransactions: [] }) });
      expect((skipped as PromiseRejectedResult).reason).toBeInstanceOf(JsonRpcError);
      expect(((skipped as PromiseRejectedResult).reason as JsonRpcError).code).toBe(-32007);
      expect((limited as PromiseRejectedResult).reason).toBeInstanceOf(JsonRpcTransportError);
      expect(((limited as PromiseRejectedResult).reason as JsonRpcTransportError).details.status).toBe(429);
      expect((malformed as PromiseRejectedResult).reason).toBeInstanceOf(MalformedBlockError);
    } finally {
      await thread.close();
      await p.close();
    }
    await expect(thread.fetch(1)).rejects.toBeInstanceOf(JsonRpcTransportError);
  });
});
