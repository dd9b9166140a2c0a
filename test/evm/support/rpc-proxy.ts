import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyFaults, noFaults, type FaultAction, type FaultName, type JsonRpcCall, type RpcFaults } from './rpc-faults';

export interface RpcCall {
  readonly method: string;
  readonly params: unknown[];
}

/**
 * A JSON-RPC proxy in front of the node: every call the adapter makes is recorded, and `faults`
 * makes it behave like a real provider (a lagging logs backend, range limits, a stalled head,
 * hanging calls; rpc-faults.ts).
 */
export interface RpcProxy {
  readonly url: string;
  readonly calls: RpcCall[];
  /** Mutable: set a field to turn a fault on, back to null / 0 to turn it off. */
  readonly faults: RpcFaults;
  /** How many calls each fault acted on. */
  readonly fired: Partial<Record<FaultName, number>>;
  /** Calls per method, e.g. { eth_getLogs: 3, eth_getBlockByNumber: 7 }. */
  counts(): Record<string, number>;
  reset(): void;
  close(): Promise<void>;
}

export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const calls: RpcCall[] = [];
  const faults = noFaults();
  const fired: Partial<Record<FaultName, number>> = {};
  const getLogsCalls = { range: 0, byHash: 0 };
  const post = async (body: string): Promise<{ status: number; text: string }> => {
    const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: upstream.status, text: await upstream.text() };
  };
  const upstream = async (method: string, params: unknown[]): Promise<unknown> => {
    const { text } = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }));
    return (JSON.parse(text) as { result: unknown }).result;
  };
  const act = async (body: string): Promise<FaultAction | null> => {
    let parsed: JsonRpcCall | JsonRpcCall[];
    try {
      parsed = JSON.parse(body) as JsonRpcCall | JsonRpcCall[];
    } catch {
      return null; // forwarded as is; the node answers the parse error
    }
    for (const call of Array.isArray(parsed) ? parsed : [parsed]) calls.push({ method: call.method, params: call.params ?? [] });
    if (Array.isArray(parsed)) return null; // batches are forwarded untouched (the adapter sends none)
    const byHash = parsed.method === 'eth_getLogs' && (parsed.params?.[0] as { blockHash?: unknown } | undefined)?.blockHash !== undefined;
    const index = parsed.method !== 'eth_getLogs' ? -1 : byHash ? getLogsCalls.byHash++ : getLogsCalls.range++;
    const action = await applyFaults(faults, parsed, upstream, index);
    if (action.fault) fired[action.fault] = (fired[action.fault] ?? 0) + 1;
    return action;
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      act(body)
        .then(async (action) => {
          if (action?.kind === 'hang') return; // no answer; closeAllConnections() ends it
          if (action?.kind === 'answer') {
            res.writeHead(200, { 'content-type': 'application/json' });
            res.end(JSON.stringify(action.body));
            return;
          }
          const answer = await post(action ? JSON.stringify(action.call) : body);
          res.writeHead(answer.status, { 'content-type': 'application/json' });
          res.end(answer.text);
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
    faults,
    fired,
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
